#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files.
///
/// The soft limit is raised towards the hard one at start, as the Go runtime does, and a limit still too low to serve is refused
/// with a message at start. Below it, the store, its key file and libdispatch's worker monitor
/// run out of descriptors; the monitor stops the whole process (SIGILL) when it cannot open `/proc/<tid>/stat`.
enum OpenFileLimit {
    /// The fewest open files a serving process accepts: the store's a dozen, and up to three a callback attempt (its
    /// connection and, over `https://` to a named host, the tunnel's two ends) for the 64 attempts under way at most.
    static let minimum = 256
    /// How far the soft limit is raised at most (a hard limit may be unlimited).
    static let raisedAtMost: rlim_t = 65536

    /// Raises the soft limit to the hard one (at most `raisedAtMost`, never lower than it was); returns the limit then in force,
    /// nil when it cannot be read.
    @discardableResult
    static func raise() -> Int? {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return nil }
        let wanted = min(limit.rlim_max, raisedAtMost)
        if wanted > limit.rlim_cur {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Self.resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// Why the process cannot serve with the limit in force, or nil.
    static func problem() -> String? {
        guard let limit = raise(), limit < minimum else { return nil }
        return "latchkey needs at least \(minimum) open files and may have only \(limit), its hard limit too (raise it: `ulimit -n \(minimum)`)"
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
