import Crypto
import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON

/// One attempt's request, as the contract writes it: the body (the same bytes on every attempt) and the Standard Webhooks headers, signed
/// with the callback's key over `<webhook-id>.<webhook-timestamp>.<body>`.
public struct CallbackRequest: Sendable, Equatable {
    /// `{"type":…,"timestamp":…,"seq":…,"data":…}`, compact UTF-8.
    public var body: [UInt8]
    /// Name and value of each header, in the order they are sent.
    public var headers: [(String, String)]

    /// The request for `delivery`, signed at `time` (this attempt's time on the process's clock).
    public init(_ delivery: ClaimedDelivery, at time: UnixTime, version: String) {
        body = Self.body(type: delivery.type, createdAt: delivery.createdAt, seq: delivery.seq, data: delivery.data)
        let timestamp = String(time)
        headers = [
            ("content-type", "application/json"),
            ("user-agent", "latchkey/\(version)"),
            ("webhook-id", delivery.eventId),
            ("webhook-timestamp", timestamp),
            ("webhook-signature", Self.signature(key: delivery.key, id: delivery.eventId, timestamp: timestamp, body: body)),
        ]
    }

    /// The body: the stored `data` written as it is, so every attempt sends the same bytes.
    static func body(type: String, createdAt: UnixTime, seq: Int64, data: [UInt8]) -> [UInt8] {
        var out = Array(#"{"type":"#.utf8)
        JSONSerializer.serialize(.string(type), into: &out)
        out += Array(#","timestamp":"#.utf8)
        JSONSerializer.serialize(.string(Timestamp.format(createdAt)), into: &out)
        out += Array(#","seq":\#(seq),"data":"#.utf8)
        out += data
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `v1,` and the standard base64 of HMAC-SHA256 keyed with `key` over `<id>.<timestamp>.<body>`.
    static func signature(key: [UInt8], id: String, timestamp: String, body: [UInt8]) -> String {
        var signed = HMAC<SHA256>(key: SymmetricKey(data: key))
        signed.update(data: Array("\(id).\(timestamp).".utf8))
        signed.update(data: body)
        return "v1," + Base64.encode(signed.finalize().byteArray)
    }

    public static func == (lhs: CallbackRequest, rhs: CallbackRequest) -> Bool {
        lhs.body == rhs.body && lhs.headers.map(\.0) == rhs.headers.map(\.0) && lhs.headers.map(\.1) == rhs.headers.map(\.1)
    }
}
