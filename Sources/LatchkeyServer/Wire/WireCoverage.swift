extension WireReadable {
    /// The stored properties no member of `fields` reads (`who.email` for a nested one): each would reach the handler as the value `init()` starts
    /// from.
    ///
    /// Empty for every params type; a test checks each method's.
    static var unreadProperties: [String] {
        unread(in: Self(), at: 0, under: "", read: fields.compactMap { $0.storage() })
    }
}

/// The stored properties of `value`, which starts at byte `base` of the root, that no range in `read` covers: a property read whole is covered, one
/// read in parts is looked into, and one of no bytes (a one-case enum) holds nothing to forget.
///
/// A struct lays its stored properties out in declaration order, each at the next multiple of its
/// alignment.
private func unread(in value: Any, at base: Int, under prefix: String, read: [Range<Int>]) -> [String] {
    var offset = base
    var missing: [String] = []
    for child in Mirror(reflecting: value).children {
        let (size, alignment) = _openExistential(child.value, do: layout)
        offset = (offset + alignment - 1) / alignment * alignment
        let bytes = offset..<offset + size
        offset += size
        guard size > 0, !read.contains(bytes) else { continue }
        let path = prefix + (child.label ?? "?")
        let parts = read.filter { bytes.contains($0.lowerBound) && $0.upperBound <= bytes.upperBound }
        missing += parts.isEmpty ? [path] : unread(in: child.value, at: bytes.lowerBound, under: path + ".", read: parts)
    }
    return missing
}

private func layout<T>(_ value: T) -> (size: Int, alignment: Int) { (MemoryLayout<T>.size, MemoryLayout<T>.alignment) }
