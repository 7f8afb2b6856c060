import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyServer
import LatchkeyWire

enum RecoveryGenerateCode: RPCMethod {
    static let declaration = MethodDeclaration(
        "recovery/generateCode", "A fresh recovery code of 100 bits (4 groups of 5 Base32 characters).",
        description: """
            Draws a fresh recovery code of 100 bits (4 groups of 5 Base32 characters) for users who would rather not \
            choose one. Stores nothing; set it with recovery/startAddOrUpdate and recovery/finishAddOrUpdate.
            """)
    static let result = Codec.member("recoveryCode", .text)
    static func handle(_ params: NoParams, _ context: CallContext) throws -> String {
        // Drawn by the system (whose store holds the keyed-hash key drawn first in a seeded run).
        RecoveryCode.generate(try context.core.random)
    }
}
