#if canImport(Glibc)
import Glibc
#endif

/// Deliveries are background work: the worker's threads run at a lower CPU priority (nice 10) than the thread that answers
/// requests, so on a busy machine a request is not kept waiting by an attempt.
enum BackgroundPriority {
    static let niceness: Int32 = 10

    /// Lowers the calling thread's priority (Linux: per thread, found through /proc/thread-self; elsewhere nothing).
    static func lowerThisThread() {
        #if os(Linux)
        var link = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/thread-self", &link, link.count - 1)
        guard length > 0 else { return }
        // "<pid>/task/<tid>"
        let text = String(decoding: link.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let tid = text.split(separator: "/").last.flatMap({ id_t($0) }) else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, niceness)
        #endif
    }
}
