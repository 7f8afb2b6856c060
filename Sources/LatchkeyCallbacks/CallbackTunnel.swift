import LatchkeyContract
import LatchkeyCore
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// An HTTP `CONNECT` tunnel in the process, on a loopback address of its own, through which every `https://` attempt to a named host
/// goes (the client speaks TLS to the receiver through it, end to end).
///
/// Why: NIOSSL accepts a certificate whose IP address entry is the address the connection reached, whatever name was asked for
/// (`validIdentityForService`). Connected straight to the receiver, a certificate for an attacker's address would pass for any host
/// name whose resolution the attacker steers. Through the tunnel the connection reaches this loopback address, drawn at random in
/// 127.0.0.0/8 when the process starts, which no certificate names: only the host name can match ("checks the certificate and host
/// name").
///
/// It serves only this process's clients (a `CONNECT` carries the tunnel's random token) and connects only where the transport
/// approved beforehand (`approve`): the host, port and checked address an attempt's client names in its `CONNECT` (the address in a
/// header). A connection that has not shown the token within `headTimeout` is closed, as is one not a tunnel within
/// `entranceTimeout`; of those that have not shown it, at most `entrances` wait at once (a newer one closes the oldest: a flood
/// of idle connections delays the process's own by a moment, not for good). Why a connection failed is kept for the transport.
///
/// Where only 127.0.0.1 can be listened on (a system or network namespace with no other loopback address), a certificate naming
/// 127.0.0.1 would still pass for any host.
final class CallbackTunnel: Sendable {
    /// The address it listens on: a loopback address drawn at random (127.0.0.1 where it is the only one).
    let host: String
    let port: Int
    private let routes: TunnelRoutes
    private let listener: any Channel

    /// The header of the `CONNECT` request that names the checked address to reach.
    static let addressHeader = "latchkey-address"
    /// The header of the `CONNECT` request that carries `token`.
    static let tokenHeader = "latchkey-tunnel"
    /// What a `CONNECT` must carry: drawn from the system's generator at start (no seeded value), never logged.
    let token: String
    /// How long a connection may take to show the token (the process's client sends its `CONNECT` at once).
    static let headTimeout: TimeAmount = .seconds(2)
    /// How long a connection may take to become a tunnel (its `CONNECT` read and the receiver reached).
    static let entranceTimeout: TimeAmount = .seconds(12)
    /// How long connecting to the receiver may take: the attempt's 10 s (which ends the attempt first).
    static let connectTimeout: TimeAmount = .seconds(10)
    /// Connections that have not shown the token, at once, at most.
    static let entrances = 256

    /// The loopback addresses tried in turn for the listener: one drawn from the system's generator, then 127.0.0.1.
    static func listenAddresses() -> [String] {
        let drawn = (0..<3).map { _ in String(UInt8.random(in: 1...254)) }.joined(separator: ".")
        return ["127.\(drawn)", "127.0.0.1"]
    }

    init(group: any EventLoopGroup) throws {
        let token = SecretHash.hex((0..<16).map { _ in UInt8.random(in: 0...255) })
        let routes = TunnelRoutes(token: token)
        var bound: (any Channel)?
        var lastError: any Error = ChannelError.ioOnClosedChannel
        for address in Self.listenAddresses() where bound == nil {
            do {
                bound = try ServerBootstrap(group: group)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .childChannelInitializer { channel in
                        // Counted out when it shows the token or its entrance leaves (a tunnel made, or the connection closed).
                        let number = routes.enter(channel)
                        return channel.eventLoop.makeCompletedFuture {
                            let sync = channel.pipeline.syncOperations
                            do {
                                try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
                                try sync.addHandler(HTTPResponseEncoder())
                                try sync.addHandler(TunnelEntrance(routes: routes, number: number))
                            } catch {
                                routes.leave(number)  // no entrance to count it out
                                throw error
                            }
                        }
                    }
                    .bind(host: address, port: 0).wait()
            } catch {
                lastError = error
            }
        }
        guard let bound, let port = bound.localAddress?.port, let host = bound.localAddress?.ipAddress else { throw lastError }
        self.routes = routes
        self.token = token
        self.listener = bound
        self.host = host
        self.port = port
    }

    /// Lets a `CONNECT` to `host`:`port` naming `address` through.
    func approve(host: String, port: Int, address: String) {
        routes.approve(TunnelRoutes.Route(host: host.lowercased(), port: port, address: address))
    }

    /// Why the last connection to `host`:`port` at `address` failed, if the last one did.
    func failure(host: String, port: Int, address: String) -> CallbackAttemptError? {
        routes.failure(TunnelRoutes.Route(host: host.lowercased(), port: port, address: address))
    }
}

/// What the tunnel may reach, and why its last connections failed.
final class TunnelRoutes: Sendable {
    struct Route: Hashable, Sendable {
        var host: String
        var port: Int
        var address: String
    }

    /// Routes kept before the set is emptied (a host whose address keeps changing).
    static let kept = 1024

    let token: String
    private let approved = Mutex<Set<Route>>([])
    private let failures = Mutex<[Route: CallbackAttemptError]>([:])

    /// Connections that have not shown the token, oldest first, each with its number.
    private let waiting = Mutex<(next: Int, connections: [(number: Int, channel: any Channel)])>((0, []))

    init(token: String) { self.token = token }

    /// Counts a connection in (its number, for `leave`); one too many closes the oldest.
    func enter(_ channel: any Channel) -> Int {
        let (number, evicted) = waiting.withLock { waiting -> (Int, (any Channel)?) in
            let number = waiting.next
            waiting.next += 1
            waiting.connections.append((number, channel))
            guard waiting.connections.count > CallbackTunnel.entrances else { return (number, nil) }
            return (number, waiting.connections.removeFirst().channel)
        }
        evicted?.close(promise: nil)
        return number
    }

    /// Counts a connection out (it showed the token, or left); again, nothing.
    func leave(_ number: Int) { waiting.withLock { $0.connections.removeAll { $0.number == number } } }

    /// Whether `presented` is the token, compared in constant time.
    func admits(_ presented: String?) -> Bool { presented.map { SecretHash.constantTimeEquals($0, token) } ?? false }

    func approve(_ route: Route) {
        approved.withLock { approved in
            if approved.count >= Self.kept { approved.removeAll() }
            approved.insert(route)
        }
    }

    func isApproved(_ route: Route) -> Bool { approved.withLock { $0.contains(route) } }

    /// Keeps why the last connection on `route` failed (nil: it succeeded).
    func record(_ failure: CallbackAttemptError?, _ route: Route) {
        failures.withLock { failures in
            if failures.count >= Self.kept { failures.removeAll() }
            failures[route] = failure
        }
    }

    func failure(_ route: Route) -> CallbackAttemptError? { failures.withLock { $0[route] } }
}

/// Reads one `CONNECT` request; connects to the approved address it names and answers 200, then hands both connections to a pair of
/// `TunnelGlue`; else answers 403 (not approved, or not a `CONNECT`) or 502 (the receiver could not be reached, why kept in `routes`).
private final class TunnelEntrance: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: TunnelRoutes
    private let number: Int
    private var route: TunnelRoutes.Route?
    private var refused = false
    /// A `CONNECT` was read: nothing more is read until the tunnel is open (or refused).
    private var answering = false
    private var deadlines: [Scheduled<Void>] = []

    init(routes: TunnelRoutes, number: Int) {
        self.routes = routes
        self.number = number
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        // The head deadline is cancelled when the token is shown.
        deadlines = [CallbackTunnel.headTimeout, CallbackTunnel.entranceTimeout].map {
            context.eventLoop.scheduleTask(in: $0) { loopBound.value.close(promise: nil) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        for deadline in deadlines { deadline.cancel() }
        routes.leave(number)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answering else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard head.method == .CONNECT, route == nil, routes.admits(head.headers.first(name: CallbackTunnel.tokenHeader)),
                let route = Self.route(head)
            else {
                refused = true
                return
            }
            self.route = route
            // The process's own: no longer one of those waiting to show the token, nor held to its deadline.
            routes.leave(number)
            deadlines.first?.cancel()
        case .body:
            break
        case .end:
            answering = true
            guard !refused, let route, routes.isApproved(route) else {
                // An attempt of this process refused (its approval forgotten): its reason is this one, not an older one's.
                if !refused, let route { routes.record(.connectionFailed, route) }
                return answer(context, .forbidden)
            }
            connect(context, route)
        }
    }

    /// Holds reading while the tunnel is being opened: what the client sends meanwhile waits in the socket, not here.
    func read(context: ChannelHandlerContext) {
        if !answering { context.read() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }

    /// The route a `CONNECT host:port` with the address header names.
    private static func route(_ head: HTTPRequestHead) -> TunnelRoutes.Route? {
        guard let colon = head.uri.lastIndex(of: ":"), let port = Int(head.uri[head.uri.index(after: colon)...]),
            let address = head.headers.first(name: CallbackTunnel.addressHeader)
        else { return nil }
        return TunnelRoutes.Route(host: String(head.uri[..<colon]).lowercased(), port: port, address: address)
    }

    private func connect(_ context: ChannelHandlerContext, _ route: TunnelRoutes.Route) {
        let routes = routes
        let loop = context.eventLoop
        ClientBootstrap(group: loop)
            .connectTimeout(CallbackTunnel.connectTimeout)
            .connect(host: route.address, port: route.port)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let receiver):
                    routes.record(nil, route)
                    self.open(context, to: receiver)
                case .failure(let error):
                    routes.record(CallbackTransport.classify(error, secure: false), route)
                    self.answer(context, .badGateway)
                }
            }
    }

    /// Answers 200, then glues the two connections together and leaves.
    private func open(_ context: ChannelHandlerContext, to receiver: any Channel) {
        guard context.channel.isActive else {
            receiver.close(promise: nil)
            return
        }
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["content-length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        do {
            let (near, far) = TunnelGlue.pair()
            try receiver.pipeline.syncOperations.addHandler(far)
            let sync = context.pipeline.syncOperations
            try sync.addHandler(near)
            for deadline in deadlines { deadline.cancel() }
            sync.removeHandler(self, promise: nil)
            try sync.removeHandler(context: sync.context(handlerType: HTTPResponseEncoder.self), promise: nil)
            try sync.removeHandler(context: sync.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self), promise: nil)
            // Reading was held while the tunnel opened: it goes on, through the glue.
            context.channel.read()
        } catch {
            receiver.close(promise: nil)
            context.close(promise: nil)
        }
    }

    private func answer(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus) {
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: ["content-length": "0", "connection": "close"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

/// One end of a tunnel: what one connection reads, the other writes.
///
/// A connection that ends closes the other; reading waits while the other end cannot write (both ends run on one event loop).
private final class TunnelGlue: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private var partner: TunnelGlue?
    private var context: ChannelHandlerContext?
    private var readWaiting = false

    static func pair() -> (TunnelGlue, TunnelGlue) {
        let near = TunnelGlue()
        let far = TunnelGlue()
        near.partner = far
        far.partner = near
        return (near, far)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    /// One end gone (its connection closed) closes the other once what it still had to write is written.
    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner?.closeWhenWritten()
        partner = nil
    }

    private func closeWhenWritten() {
        guard let context else { return }
        let channel = context.channel
        // Writes complete in order: an empty one completes after those before it.
        context.writeAndFlush(NIOAny(channel.allocator.buffer(capacity: 0))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Flushed at once: what the entrance's decoder held when it left comes with no read-complete after it.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) { partner?.context?.writeAndFlush(data, promise: nil) }

    func channelInactive(context: ChannelHandlerContext) { partner?.closeWhenWritten() }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.resumeReading() }
    }

    func read(context: ChannelHandlerContext) {
        if partner?.context?.channel.isWritable ?? false {
            context.read()
        } else {
            readWaiting = true
        }
    }

    private func resumeReading() {
        guard readWaiting, let context else { return }
        readWaiting = false
        context.read()
    }
}
