import AsyncHTTPClient
import Dispatch
import LatchkeyContract
import LatchkeyCore
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How one attempt ended: the receiver's status, or why there was none.
public enum CallbackOutcome: Sendable, Equatable {
    case status(Int)
    case failed(CallbackAttemptError)
}

/// Sends attempts over HTTP(S) with AsyncHTTPClient, to the address the policy checked.
///
/// The host is resolved here (never by the client), every address it resolves to is checked, and the client reaches the one chosen,
/// so nothing can rebind the name between the check and the connection: over `https://` to a named host through the process's
/// `CallbackTunnel` (the certificate must then name the host: see there), else with `dnsOverride`; the name stays in SNI, the `Host`
/// header and the certificate check. One client per (host, address), kept for its connections; redirects are not followed; the
/// whole request (connect, TLS, head and body) has 10 s.
final class CallbackTransport: Sendable {
    /// One attempt's time limit.
    static let timeLimit: TimeAmount = .seconds(10)
    /// Connections to one host and port at once: as many as the worker's attempts under way in all, so that no attempt waits in
    /// the client's pool for a connection that another callback's attempt holds (callbacks on one host are as independent as
    /// callbacks on two; the worker bounds each callback's share).
    static let connectionsPerHost = CallbackWorker.inFlight
    /// Clients kept before the cache is emptied (a host whose address keeps changing).
    static let cachedClients = 256

    private let group: MultiThreadedEventLoopGroup
    private let tls: TLSConfiguration
    private let policy: @Sendable () -> CallbackPolicy
    private let clients = Mutex<[String: HTTPClient]>([:])
    /// Made on the first `https://` attempt to a named host (nil: not yet, or it could not listen).
    private let madeTunnel = Mutex<CallbackTunnel?>(nil)

    init(trust: CallbackTrust, policy: @escaping @Sendable () -> CallbackPolicy) {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        group.next().execute { BackgroundPriority.lowerThisThread() }
        tls = trust.configuration
        self.policy = policy
    }

    /// Sends `request` for `url` off the calling thread (resolving may block); `done` gets the outcome, and for a failure the client's
    /// error as text for a debug log (its type and case: no URL, header or body), on another thread.
    func send(_ request: CallbackRequest, to url: String, _ done: @escaping @Sendable (CallbackOutcome, _ cause: String?) -> Void) {
        DispatchQueue.global().async { [self] in
            do {
                let (future, route) = try execute(request, url)
                future.whenComplete { [self] result in
                    switch result {
                    case .success(let status): done(.status(status), nil)
                    case .failure(let error):
                        // Through the tunnel, a receiver that could not be reached is the tunnel's refusal: it kept why.
                        let refused = (error as? HTTPClientError) == .invalidProxyResponse
                        let why = route.flatMap { route in
                            refused ? madeTunnel.withLock { $0 }?.failure(host: route.host, port: route.port, address: route.address) : nil
                        }
                        done(.failed(why ?? Self.classify(error, secure: url.lowercased().hasPrefix("https:"))), Self.cause(error))
                    }
                }
            } catch let refusal as CallbackAttemptError {
                done(.failed(refusal), nil)
            } catch {
                done(.failed(.connectionFailed), Self.cause(error))
            }
        }
    }

    /// A client error for a debug log: its type, and its case where that names no URL, header or text the receiver chose
    /// (HTTPClientError's short description carries no associated value; IOError, NIOSSLError and ChannelError name a system or
    /// TLS library error); other types by name only.
    static func cause(_ error: any Error) -> String {
        let type = String(reflecting: Swift.type(of: error))
        switch error {
        case let client as HTTPClientError: return "\(type): \(client.shortDescription)"
        case is IOError, is NIOSSLError, is ChannelError: return "\(type): \(String(describing: error).prefix(200))"
        default: return type
        }
    }

    /// The attempt under way, and the tunnel route it takes (nil: none).
    private func execute(_ request: CallbackRequest, _ url: String) throws -> (EventLoopFuture<Int>, TunnelRoutes.Route?) {
        let parsed: CallbackURL
        // A URL stored before today's host rules (a zone id, a percent-encoded host) names a host the checks cannot read: refused.
        do { parsed = try CallbackURL(url) } catch { throw CallbackAttemptError.addressNotAllowed }
        var headers = HTTPHeaders()
        for (name, value) in request.headers { headers.add(name: name, value: value) }
        let outgoing = try HTTPClient.Request(url: url, method: .POST, headers: headers, body: .bytes(request.body))
        // The client's reading of the host must be ours, or the address checked is not the one it would reach.
        let clientHost = outgoing.host.lowercased()
        guard clientHost == parsed.host || clientHost == "[\(parsed.host)]" else { throw CallbackAttemptError.addressNotAllowed }
        // Plain http:// carries the signed body in clear: it goes to this machine only, whatever the name resolves to today.
        let address = try policy().destination(of: parsed.host, loopbackOnly: !parsed.secure).get()
        var route: TunnelRoutes.Route?
        var through: CallbackTunnel?
        if parsed.secure, !CallbackAddress.isLiteral(parsed.host) {
            // No tunnel, no attempt: straight to the receiver, a certificate for its address would do.
            guard let tunnel = openTunnel() else { throw CallbackAttemptError.connectionFailed }
            tunnel.approve(host: outgoing.host, port: outgoing.port, address: address)
            route = TunnelRoutes.Route(host: outgoing.host.lowercased(), port: outgoing.port, address: address)
            through = tunnel
        }
        let client = self.client(host: outgoing.host, address: CallbackAddress.isLiteral(parsed.host) ? nil : address, through: through)
        return (client.execute(request: outgoing, delegate: StatusOnly(), deadline: .now() + Self.timeLimit).futureResult, route)
    }

    /// The process's tunnel, made on first use (nil: it cannot listen; tried again on the next attempt).
    private func openTunnel() -> CallbackTunnel? {
        madeTunnel.withLock { made in
            if let made { return made }
            made = try? CallbackTunnel(group: group)
            return made
        }
    }

    /// The client for `host` pinned to `address` (nil: the host is itself an address), through `tunnel` when given.
    private func client(host: String, address: String?, through tunnel: CallbackTunnel?) -> HTTPClient {
        let key = "\(host) \(address ?? "")\(tunnel == nil ? "" : " tunnel")"
        return clients.withLock { clients in
            if let known = clients[key] { return known }
            if clients.count >= Self.cachedClients {
                for client in clients.values { client.shutdown { _ in } }
                clients.removeAll()
            }
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: Self.timeLimit),
                connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: Self.connectionsPerHost))
            // A refused or failed connection fails the attempt at once (the schedule retries it), not after the deadline.
            configuration.connectionPool.retryConnectionEstablishment = false
            if let tunnel, let address {
                configuration.proxy = .server(
                    host: tunnel.host, port: tunnel.port,
                    connectHeaders: [CallbackTunnel.addressHeader: address, CallbackTunnel.tokenHeader: tunnel.token])
            } else if let address {
                configuration.dnsOverride = [host: address]
            }
            let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
            clients[key] = client
            return client
        }
    }

    /// The `lastError` name of a failure.
    ///
    /// Over `https://` the TLS handshake is the first thing on a connection and no request is sent before it ends: a receiver that
    /// closes or resets the connection before answering has refused the handshake (a TLS version or cipher it will not speak), as
    /// often as it says so with an alert (through the tunnel, the connection is closed under the client).
    static func classify(_ error: any Error, secure: Bool) -> CallbackAttemptError {
        let named = name(of: error)
        guard secure, named == .connectionFailed else { return named }
        switch error {
        case let io as IOError where io.errnoCode == ECONNRESET || io.errnoCode == EPIPE: return .tlsFailure
        case let client as HTTPClientError where client == .remoteConnectionClosed: return .tlsFailure
        // Through the tunnel, the receiver's reset reaches the client as the tunnel closing the connection.
        case let channel as ChannelError where channel == .ioOnClosedChannel || channel == .eof: return .tlsFailure
        default: return named
        }
    }

    private static func name(of error: any Error) -> CallbackAttemptError {
        switch error {
        case let refusal as CallbackAttemptError:
            return refusal
        case let client as HTTPClientError:
            switch client {
            case .deadlineExceeded, .connectTimeout, .readTimeout, .writeTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout,
                .httpProxyHandshakeTimeout:
                return .timeout
            default:
                return .connectionFailed
            }
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            return .tlsFailure
        case let io as IOError:
            return io.errnoCode == ECONNREFUSED ? .connectionRefused : .connectionFailed
        case let connection as NIOConnectionError:
            if connection.dnsAError != nil || connection.dnsAAAAError != nil, connection.connectionErrors.isEmpty { return .resolutionFailed }
            let causes = connection.connectionErrors.map { name(of: $0.error) }
            return causes.contains(.connectionRefused) ? .connectionRefused : causes.first ?? .connectionFailed
        case ChannelError.connectTimeout:
            return .timeout
        default:
            return .connectionFailed
        }
    }
}

/// Keeps the status of an answer and drops its body.
private final class StatusOnly: HTTPClientResponseDelegate, Sendable {
    typealias Response = Int
    private let status = Mutex<Int?>(nil)

    func didReceiveHead(task: HTTPClient.Task<Int>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        status.withLock { $0 = Int(head.status.code) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Int>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Int>) throws -> Int {
        guard let status = status.withLock({ $0 }) else { throw HTTPClientError.remoteConnectionClosed }
        return status
    }
}
