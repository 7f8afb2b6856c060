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
    /// How many bytes of responses one batch may make before its remaining requests are refused (64 MiB).
    public var maxBatchResponseBytes = 64 << 20

    public init(handler: RPCHandler, writer: FrameWriter, maxMessageBytes: Int) {
        self.handler = handler
        self.writer = writer
        self.splitter = MessageSplitter(maxMessageBytes: maxMessageBytes)
    }

    /// Feeds bytes from the peer and answers every complete message in them.
    ///
    /// `shouldStop` is checked after each message (a signal finishes the message in hand).
    public func receive(_ bytes: UnsafeRawBufferPointer, shouldStop: () -> Bool = { false }) {
        // The splitter is moved out for the read and back after it: a local needs no exclusivity
        // check each time a message is taken from it, and lends the message without a copy.
        var splitter = self.splitter
        self.splitter = MessageSplitter(maxMessageBytes: splitter.maxMessageBytes)
        defer { self.splitter = splitter }
        splitter.append(bytes)
        while !exitRequested, let event = splitter.nextInPlace() {
            if let framing = splitter.framing { writer.framing = framing }
            switch event {
            case .message(let range): splitter.withMessage(range) { processMessage($0, indent: splitter.indent) }
            case .tooLarge: process(.tooLarge)
            case .badHeader: process(.badHeader)
            }
            // After the message, not before it: one read just before a signal is still answered.
            if shouldStop() { break }
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
            bytes.withUnsafeBytes { processMessage($0, indent: splitter.indent) }
        }
    }

    /// Answers one message body: a request, a notification or a batch.
    public func processMessage(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { processMessage($0) }
    }

    /// Answers one message body in place.
    ///
    /// A single request is read straight from jansson's tree (only its `id`, `method` and `params`
    /// become Swift values) and its response serialized without building a response object.
    /// `indent`: the whitespace columns dropped before the message on its line, which a parse error's column on that line counts.
    public func processMessage(_ bytes: UnsafeRawBufferPointer, indent: Int = 0) {
        var other: JSON?
        do {
            try JSONParser.withDocument(bytes) { document in
                if document.isObject { respond(to: document) } else { other = document.value }
            }
        } catch {
            var error = error
            if error.line == 1 { error.column += indent }
            refuse(.parseError(error))
            return
        }
        if let other { process(other) }
    }

    // What a message seldom needs is kept out of the path every request takes (`processMessage`,
    // `respond`, `call`), so that path fits in a few cache lines.

    /// Answers a message that is not an object: a batch, or what is no request.
    @inline(never)
    private func process(_ value: JSON) {
        switch value {
        case .array where !acceptsBatches:
            refuse(.invalidRequest("batches are not served"))
        case .array(let items):
            guard !items.isEmpty else { return refuse(.invalidRequest("an empty batch")) }
            answer(batch: items)
        default:
            do throws(RejectedRequest) {
                try respond(to: RPCRequest.decode(value))
            } catch {
                refuse(error)
            }
        }
    }

    /// Answers a batch: its requests in order, each response serialized as soon as it is made, so that what the
    /// batch holds in memory is its answer's bytes, not a value per response.
    ///
    /// A batch of requests under the message limit can ask for far more than that to be written (a thousand
    /// `rpc.discover` in 64 KiB). Once the responses pass `maxBatchResponseBytes`, the requests left are not
    /// carried out: each is answered `messageTooLarge` (`data.limit`), and a notification among them is dropped; `exit` alone is
    /// still carried out.
    @inline(never)
    private func answer(batch items: [JSON]) {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        var answered = 0
        for item in items {
            let start = bytes.count
            if answered > 0 { bytes.append(UInt8(ascii: ",")) }
            do throws(RejectedRequest) {
                let request = try RPCRequest.decode(item)
                // `exit` is carried out whatever the batch made: the process must still end when asked.
                let carriedOut = bytes.count <= maxBatchResponseBytes || request.method == "exit"
                guard let id = request.id else {
                    if carriedOut { _ = call(request) }
                    bytes.removeSubrange(start...)
                    continue
                }
                let outcome: Result<JSON, RPCError> = carriedOut ? call(request) : .failure(.batchResponseTooLarge(limit: maxBatchResponseBytes))
                RPCMessage.writeResponse(outcome, id: id, into: &bytes)
            } catch {
                JSONSerializer.serialize(RPCMessage.error(error.error, id: error.id), into: &bytes)
            }
            answered += 1
        }
        guard answered > 0 else { return }
        bytes.append(UInt8(ascii: "]"))
        writer.enqueue { $0.append(contentsOf: bytes) }
    }

    /// Answers what cannot be read as a request with `error` and a null id.
    @inline(never)
    private func refuse(_ error: RPCError) {
        writer.enqueue(RPCMessage.error(error, id: .null))
    }

    @inline(never)
    private func refuse(_ rejected: RejectedRequest) {
        writer.enqueue(RPCMessage.error(rejected.error, id: rejected.id))
    }

    /// Answers the request a parsed object holds, or says why it is not one.
    private func respond(to document: borrowing JSONDocument) {
        do throws(RejectedRequest) {
            try respond(to: RPCRequest.decode(document))
        } catch {
            refuse(error)
        }
    }

    /// Answers one request (nothing for a notification), the response serialized straight into the frame.
    private func respond(to request: RPCRequest) {
        let outcome = call(request)
        guard let id = request.idValue else { return }
        writer.enqueue { RPCMessage.writeResponse(outcome, id: id, into: &$0) }
    }

    /// Carries out one request: `exit` here, any other method by the handler.
    private func call(_ request: RPCRequest) -> Result<JSON, RPCError> {
        if request.method == "exit" { return exit() }
        let writer = self.writer
        return handler.handle(request) { notification in writer.enqueue(notification) }
    }

    /// `exit`: stop once what is in hand is done.
    @inline(never)
    private func exit() -> Result<JSON, RPCError> {
        exitRequested = true
        return .success(.object(JSONObject()))
    }
}
