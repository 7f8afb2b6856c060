import LatchkeyJSON

/// Turns framed input into calls on an `RPCHandler` and queues the replies: single requests,
/// notifications and batches, with every JSON-RPC 2.0 error case answered.
public final class RPCEngine {
    public let handler: RPCHandler
    public let writer: FrameWriter
    private var splitter: MessageSplitter
    /// Set by the `exit` notification: stop once what is in hand is done.
    public private(set) var exitRequested = false
    /// Whether a JSON array is answered as a batch; when false it is one `invalidRequest`.
    public var acceptsBatches = true

    public init(handler: RPCHandler, writer: FrameWriter, maxMessageBytes: Int) {
        self.handler = handler
        self.writer = writer
        self.splitter = MessageSplitter(maxMessageBytes: maxMessageBytes)
    }

    /// Feeds bytes from the peer and answers every complete message in them.
    ///
    /// `shouldStop` is checked after each message (a signal finishes the message in hand).
    public func receive(_ bytes: UnsafeRawBufferPointer, shouldStop: () -> Bool = { false }) {
        splitter.append(bytes)
        while !exitRequested, !shouldStop(), let event = splitter.nextInPlace() {
            if let framing = splitter.framing { writer.framing = framing }
            switch event {
            case .message(let range): splitter.withMessage(range) { processMessage($0) }
            case .tooLarge: process(.tooLarge)
            case .badHeader: process(.badHeader)
            }
        }
    }

    /// Feeds bytes (tests).
    public func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// End of input: an unterminated last line is still answered.
    public func finishInput() {
        guard !exitRequested, let event = splitter.finish() else { return }
        process(event)
    }

    private func process(_ event: FrameEvent) {
        switch event {
        case .tooLarge:
            writer.enqueue(RPCMessage.error(.messageTooLarge(limit: splitter.maxMessageBytes), id: .null))
        case .badHeader:
            writer.enqueue(
                RPCMessage.error(
                    .invalidRequest("the Content-Length header is missing or malformed"), id: .null))
        case .message(let bytes):
            processMessage(bytes)
        }
    }

    /// Answers one message body: a request, a notification or a batch.
    public func processMessage(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { processMessage($0) }
    }

    /// Answers one message body in place.
    public func processMessage(_ bytes: UnsafeRawBufferPointer) {
        let parsed: JSON
        do {
            parsed = try JSONParser.parse(bytes)
        } catch {
            writer.enqueue(RPCMessage.error(.parseError(error), id: .null))
            return
        }
        switch parsed {
        case .array where !acceptsBatches:
            writer.enqueue(RPCMessage.error(.invalidRequest("batches are not served"), id: .null))
        case .array(let items):
            guard !items.isEmpty else {
                writer.enqueue(RPCMessage.error(.invalidRequest("an empty batch"), id: .null))
                return
            }
            var responses: [JSON] = []
            for item in items {
                if let response = answer(item) { responses.append(response) }
            }
            if !responses.isEmpty { writer.enqueue(.array(responses)) }
        default:
            if let response = answer(parsed) { writer.enqueue(response) }
        }
    }

    /// The response to one request object, or nil for a notification.
    private func answer(_ json: JSON) -> JSON? {
        let request: RPCRequest
        switch RPCRequest.decode(json) {
        case .failure(let rejected):
            return RPCMessage.error(rejected.error, id: rejected.id)
        case .success(let decoded):
            request = decoded
        }
        if request.method == "exit" {
            exitRequested = true
            return request.id.map { RPCMessage.result(.object(JSONObject()), id: $0) }
        }
        let writer = self.writer
        let outcome = handler.handle(request) { notification in writer.enqueue(notification) }
        guard let id = request.id else { return nil }
        switch outcome {
        case .success(let result): return RPCMessage.result(result, id: id)
        case .failure(let error): return RPCMessage.error(error, id: id)
        }
    }
}
