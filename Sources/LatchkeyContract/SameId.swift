/// Ids compared as the store compares them: byte for byte.
///
/// Swift's `==` on strings compares by canonical equivalence, so `"café"` and `"cafe\u{301}"`, or `"Karl"` and `"\u{212A}arl"`
/// (the Kelvin sign), are equal to it and two users, two applications or two registrations to the store. Every check that an id
/// names the same thing as another (whose operation, of which application, for which registration) uses this.
extension String {
    /// Whether `other` is this id, byte for byte (nil is no id).
    @inlinable public func isSameId(as other: String?) -> Bool {
        guard let other else { return false }
        return utf8.elementsEqual(other.utf8)
    }
}

extension Optional where Wrapped == String {
    /// Whether both are the same id byte for byte, or both are none.
    @inlinable public func isSameId(as other: String?) -> Bool {
        switch (self, other) {
        case (nil, nil): return true
        case (let mine?, let theirs): return mine.isSameId(as: theirs)
        case (nil, _?): return false
        }
    }
}
