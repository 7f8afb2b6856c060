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

    /// Raises the soft limit to the hard one (at most `raisedAtMost`, never lower than it was).
    static func raise() {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return }
        let wanted = min(limit.rlim_max, raisedAtMost)
        guard wanted > limit.rlim_cur else { return }
        limit.rlim_cur = wanted
        _ = setrlimit(Self.resource, &limit)
    }

    /// Why the process cannot serve with the limit in force (`main` raised it first), or nil.
    static func problem() -> String? {
        var current = rlimit()
        guard getrlimit(Self.resource, &current) == 0 else { return nil }
        let limit = Int(clamping: current.rlim_cur)
        guard limit < minimum else { return nil }
        return "latchkey needs at least \(minimum) open files and may have only \(limit), its hard limit too (raise it: `ulimit -n \(minimum)`)"
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
