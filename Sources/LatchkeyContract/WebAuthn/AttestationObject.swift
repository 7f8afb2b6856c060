/// A WebAuthn attestation object (Level 3 §6.5.4): the CBOR map of exactly `fmt` (text),
/// `attStmt` (a map) and `authData` (bytes), and nothing after it.
public struct AttestationObject: Sendable, Equatable {
    /// The attestation statement format (`none`, `packed`, …).
    public var format: String
    /// The attestation statement: a map's entries.
    public var statement: [CBORMapEntry]
    /// The authenticator data's bytes (read with `AuthenticatorData(bytes:)`).
    public var authData: [UInt8]

    public init(format: String, statement: [CBORMapEntry], authData: [UInt8]) {
        self.format = format
        self.statement = statement
        self.authData = authData
    }

    /// Reads an attestation object.
    /// - Throws: `AttestationObjectError`: not one strict CBOR item, not a map, a key other than
    ///   the three, one missing, or one of another type.
    public init(bytes: [UInt8]) throws(AttestationObjectError) {
        let value: CBOR
        do { value = try CBORDecoder.decode(bytes) } catch { throw .cbor(error) }
        guard let entries = value.mapValue else { throw .notAMap }
        guard entries.count == 3 else { throw .members }
        guard let format = value["fmt"]?.textValue, let statement = value["attStmt"]?.mapValue,
            let authData = value["authData"]?.bytesValue
        else { throw .members }
        self.init(format: format, statement: statement, authData: authData)
    }

    /// The canonical CBOR bytes.
    public var encoded: [UInt8] {
        CBOR.map([
            CBORMapEntry(.text("fmt"), .text(format)), CBORMapEntry(.text("attStmt"), .map(statement)),
            CBORMapEntry(.text("authData"), .bytes(authData)),
        ]).encoded
    }

    /// A fuzz entry point: reads any bytes as an attestation object and its authenticator data;
    /// never traps.
    public static func fuzz(_ bytes: [UInt8]) {
        guard let object = try? AttestationObject(bytes: bytes) else { return }
        AuthenticatorData.fuzz(object.authData)
        _ = object.encoded
    }
}

/// Why bytes are not an attestation object (every case is the contract's `encoding` check).
public enum AttestationObjectError: Error, Sendable, Equatable {
    /// Not exactly one strict CBOR item.
    case cbor(CBORError)
    /// The item is not a map.
    case notAMap
    /// The map's keys are not exactly `fmt` (text), `attStmt` (map) and `authData` (bytes).
    case members
}

extension AttestationObjectError: CustomStringConvertible {
    /// What was wrong, as human text.
    public var description: String {
        switch self {
        case .cbor(let cbor): "not one strict CBOR item: \(cbor)"
        case .notAMap: "not a CBOR map"
        case .members: "the keys are not exactly fmt, attStmt and authData"
        }
    }
}
