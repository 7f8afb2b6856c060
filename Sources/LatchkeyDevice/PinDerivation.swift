/// A PIN's key derivation done ahead of time, for the salt the device is expected to hold.
///
/// Unmasking the PIN key costs a slow PBKDF2 (`KeyMask.pinRounds`). Whoever runs a device inside a
/// store transaction can derive before the transaction opens, from the salt the device held last,
/// so the transaction does not stay open (and its locks held) through the derivation. The device
/// uses it only when the salt it holds, the PIN it is given and the rounds in force are the ones it
/// was derived for, and derives again otherwise: a stale guess costs the derivation, never a wrong key.
public struct PinDerivation: Sendable {
    let salt: [UInt8]
    let pin: String
    let rounds: Int
    /// The PBKDF2 stream the masked key is XORed with.
    let stream: [UInt8]

    /// Derives the stream of `pin` under `salt` for a masked key of `keyLength` bytes.
    /// - Throws: `KeyDerivationFailed`.
    public init(pin: String, salt: [UInt8], keyLength: Int) throws {
        self.salt = salt
        self.pin = pin
        rounds = KeyMask.pinRounds
        stream = try KeyMask.stream(secret: pin, salt: salt, count: keyLength, rounds: rounds)
    }

    /// The key `masked` hides under `pin` and `salt`, if this derivation was made for them.
    func unmask(_ masked: [UInt8], pin: String, salt: [UInt8]) -> [UInt8]? {
        // Bytes, not `String` equality: two canonically equivalent PINs derive different streams.
        guard salt == self.salt, pin.utf8.elementsEqual(self.pin.utf8), rounds == KeyMask.pinRounds, masked.count == stream.count else { return nil }
        return KeyMask.apply(stream, to: masked)
    }
}

/// What a device's PIN key derivation needs before its keychain is read: the salt and the masked
/// key's length (neither is secret).
public struct PinSalt: Sendable, Equatable {
    public var salt: [UInt8]
    public var keyLength: Int

    public init(salt: [UInt8], keyLength: Int) {
        self.salt = salt
        self.keyLength = keyLength
    }
}

extension Device {
    /// The salt of the device's PIN key as its keychain holds it now, if a PIN is activated.
    public var pinSalt: PinSalt? {
        get throws {
            guard let salt = try storage.item(.pinSalt), let masked = try storage.item(.pinMaskedKey) else { return nil }
            return PinSalt(salt: salt, keyLength: masked.count)
        }
    }
}
