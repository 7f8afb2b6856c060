import LatchkeyJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffers outgoing frames in the peer's framing and writes them with `write(2)`.
public final class FrameWriter {
    private let fd: Int32
    /// What changes as frames are written, held through a pointer rather than in properties.
    ///
    /// Every message reads the framing and appends to the buffer; an access to a class's property
    /// that spans a call is checked for exclusivity at run time, each time.
    private let state: UnsafeMutablePointer<State>

    private struct State {
        var framing: Framing
        /// The frames not yet written.
        var buffer: [UInt8] = []
        /// A Content-Length body being serialized.
        var body: [UInt8] = []
        var broken = false
    }

    public var framing: Framing {
        get { state.pointee.framing }
        set { state.pointee.framing = newValue }
    }

    /// Set once the peer has closed its end; later writes are dropped.
    public var broken: Bool { state.pointee.broken }

    public init(fd: Int32, framing: Framing = .newlineDelimited) {
        self.fd = fd
        state = .allocate(capacity: 1)
        state.initialize(to: State(framing: framing))
        state.pointee.buffer.reserveCapacity(1 << 16)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Appends one message in the current framing.
    public func enqueue(_ message: JSON) {
        enqueue { JSONSerializer.serialize(message, into: &$0) }
    }

    /// Appends one message in the current framing, which `serialize` writes straight into the
    /// frame (no value need be built for it).
    public func enqueue(serializingWith serialize: (inout [UInt8]) -> Void) {
        switch state.pointee.framing {
        case .newlineDelimited:
            serialize(&state.pointee.buffer)
            state.pointee.buffer.append(UInt8(ascii: "\n"))
        case .contentLength:
            state.pointee.body.removeAll(keepingCapacity: true)
            serialize(&state.pointee.body)
            state.pointee.buffer.append(contentsOf: Array("Content-Length: \(state.pointee.body.count)\r\n\r\n".utf8))
            state.pointee.buffer.append(contentsOf: state.pointee.body)
        }
        if state.pointee.buffer.count >= 1 << 16 { flush() }
    }

    public var hasPending: Bool { !state.pointee.buffer.isEmpty }

    /// Writes everything buffered, retrying partial writes and `EINTR`.
    public func flush() {
        defer { state.pointee.buffer.removeAll(keepingCapacity: true) }
        guard !state.pointee.broken else { return }
        var offset = 0
        let fd = self.fd
        let broken = state.pointee.buffer.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return false }
            while offset < raw.count {
                let written = write(fd, base + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR || errno == EAGAIN {
                    continue
                } else {
                    return true
                }
            }
            return false
        }
        if broken { state.pointee.broken = true }
    }
}
