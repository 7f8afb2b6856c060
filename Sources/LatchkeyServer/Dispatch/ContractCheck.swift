import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A check for tests (debug builds, `LATCHKEY_CHECK_CONTRACT=1`): every error a method answers must be one it declares, its message must be
/// human text that names no type or case of the implementation, and every result must match its result schema.
///
/// A violation is logged on stderr as `contract violation: …`, appended to the file
/// `LATCHKEY_CONTRACT_LOG` names (so a suite can check it after killing processes), and makes the
/// process exit with status 3 when it ends.
final class ContractCheck {
    private let logger: Logger
    private let logPath: String?
    /// How many violations this process saw (read when it exits).
    static let violations = Atomic<Int>(0)

    init(logger: Logger, logPath: String?) {
        self.logger = logger
        self.logPath = logPath
    }

    func verify(_ method: MethodEntry, _ outcome: Result<JSON, RPCError>) {
        for problem in Self.problems(method, outcome) {
            Self.violations.wrappingAdd(1, ordering: .relaxed)
            logger.critical("contract violation: \(method.name) \(problem)")
            if let logPath { append("\(method.name) \(problem)\n", to: logPath) }
        }
    }

    private func append(_ line: String, to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// What is wrong with one answer (empty when it keeps the declaration).
    static func problems(_ method: MethodEntry, _ outcome: Result<JSON, RPCError>) -> [String] {
        switch outcome {
        case .success(let result):
            return method.result().mismatches(result).map { "answered a result off its schema: \($0)" }
        case .failure(let error):
            let declared = Set(method.declaredReasons.map(ErrorCodes.reason) + ["invalidParams", "internalError"])
            var found = declared.contains(error.reason) ? [] : ["answered \(error.reason), which it does not declare"]
            if let name = implementationName(in: error.message) { found.append("answered a message that names \(name)") }
            return found
        }
    }

    /// A module-qualified Swift name in `message` (`LatchkeyContract.CBORError.tag`, `Swift.DecodingError`), if any: messages are human
    /// text.
    static func implementationName(in message: String) -> String? {
        let words = message.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "." || $0 == "_") })
        return words.first { word in
            let parts = word.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count >= 2, let module = parts.first, !parts[1].isEmpty, parts[1].first?.isLetter == true else { return false }
            return module.hasPrefix("Latchkey") || ["Swift", "Foundation", "Crypto", "GRDB", "_CryptoExtras"].contains(String(module))
        }.map(String.init)
    }
}
