#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Array where Element == UInt8 {
    /// The index of the first `byte` at or after `start`, or nil: `memchr`, which scans many bytes
    /// at a time where `self[start...].firstIndex(of:)` compares one at a time.
    func firstIndex(of byte: UInt8, from start: Int) -> Int? {
        withUnsafeBytes { raw in
            guard start < raw.count, let base = raw.baseAddress, let found = memchr(base + start, Int32(byte), raw.count - start) else {
                return nil
            }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }
}
