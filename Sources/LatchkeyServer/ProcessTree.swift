import Foundation

/// The processes descending from one process, as `/proc` shows them, so a command that is stopped can be stopped with every
/// process it started — those that left its process group (`setsid`) too.
///
/// Each is kept with its start time (`/proc/PID/stat` field 22), so a signal never reaches a process that took a reused pid.
struct ProcessTree {
    struct Member: Equatable {
        var pid: pid_t
        var started: UInt64
    }

    /// The descendants of `root` now (children, their children, …; not `root`).
    let members: [Member]

    init(descendantsOf root: pid_t) {
        var children: [pid_t: [Member]] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for name in entries {
            guard let pid = pid_t(name), let (parent, started) = Self.stat(of: pid) else { continue }
            children[parent, default: []].append(Member(pid: pid, started: started))
        }
        var found: [Member] = []
        var queue = [root]
        while let next = queue.popLast(), found.count < 10_000 {
            for child in children[next] ?? [] where !found.contains(child) {
                found.append(child)
                queue.append(child.pid)
            }
        }
        members = found
    }

    /// Sends `signal` to each member that is still the process it was.
    func signal(_ signal: Int32) {
        for member in members where Self.stat(of: member.pid)?.started == member.started {
            kill(member.pid, signal)
        }
    }

    /// A process's parent and start time, from `/proc/PID/stat` (nil: gone, or unreadable).
    static func stat(of pid: pid_t) -> (parent: pid_t, started: UInt64)? {
        FileManager.default.contents(atPath: "/proc/\(pid)/stat").flatMap { parse(stat: Array($0)) }
    }

    /// The parent and start time in a `/proc/PID/stat` line, read as bytes: the command name may be any bytes (not UTF-8, spaces,
    /// parentheses), and what follows its last `)` is ASCII.
    static func parse(stat bytes: [UInt8]) -> (parent: pid_t, started: UInt64)? {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // After the command name (which may hold spaces and parentheses): state, ppid, … starttime is field 22 of the line.
        let fields = bytes[bytes.index(after: close)...].split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
        guard fields.count > 19, let parent = pid_t(fields[1]), let started = UInt64(fields[19]) else { return nil }
        return (parent, started)
    }
}
