import Foundation
import Testing

@testable import LatchkeyServer

/// What a stopped delivery command's descendants are found by: `/proc/PID/stat` read as bytes.
@Suite struct ProcessTreeTests {
    /// A stat line as the kernel writes it: pid, (name), state, ppid, then fields 5–52.
    private func line(name: [UInt8], parent: Int, started: Int) -> [UInt8] {
        let rest = (5...52).map { $0 == 22 ? String(started) : "0" }.joined(separator: " ")
        return Array("4242 (".utf8) + name + Array(") S \(parent) ".utf8) + Array(rest.utf8) + [0x0A]
    }

    @Test func aNameOfAnyBytesStillGivesTheParentAndStartTime() throws {
        for name: [UInt8] in [Array("sleep".utf8), [0xFF, 0xFE, 0x20, 0x29, 0x28], Array("a ) b ( c".utf8), []] {
            let parsed = try #require(ProcessTree.parse(stat: line(name: name, parent: 7, started: 123_456)))
            #expect(parsed.parent == 7 && parsed.started == 123_456)
        }
        #expect(ProcessTree.parse(stat: Array("4242 sleep S 7".utf8)) == nil)
        #expect(ProcessTree.parse(stat: []) == nil)
    }

    @Test func thisProcessIsFoundUnderItsParent() throws {
        let tree = ProcessTree(descendantsOf: getppid())
        #expect(tree.members.contains { $0.pid == getpid() })
        #expect(ProcessTree.stat(of: getpid())?.parent == getppid())
    }
}
