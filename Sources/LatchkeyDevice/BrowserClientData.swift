import LatchkeyContract

/// The `clientDataJSON` a browser writes (WebAuthn Level 3 §5.8.1.1): `type`, `challenge`
/// (unpadded base64url), `origin`, `crossOrigin`, in that order, compact — what the simulated
/// phone sends as its own browser, without a JSON library.
public enum BrowserClientData {
    /// The serialised client data.
    public static func json(type: String, challenge: [UInt8], origin: String, crossOrigin: Bool = false) -> [UInt8] {
        var out = "{\"type\":" + quoted(type) + ",\"challenge\":" + quoted(Base64URL.encode(challenge))
        out += ",\"origin\":" + quoted(origin) + ",\"crossOrigin\":" + (crossOrigin ? "true" : "false") + "}"
        return Array(out.utf8)
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = Array("0123456789abcdef")
                    out += "\\u00" + String(hex[Int(scalar.value >> 4)]) + String(hex[Int(scalar.value & 15)])
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
