#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import GRPCCore
internal import GRPCNIOTransportHTTP2
internal import Logging
internal import NIOCore
internal import NIOPosix
internal import ServiceKit
internal import ServiceLifecycle

/// The gateway's web side: a `ConnectResponder` over a client of the gateway's own gRPC server.
/// The public port's HTTP/1.1 connections are answered by it; on HTTP/2 the relay answers web
/// streams itself (calls carried as gRPC, `WebCallTranslation`; pages, preflights and refusals
/// by the responder's `reply(to:)`). Runs until graceful shutdown, after the relay has drained.
final class WebServer: Service, Sendable {
  private let directory: DomainDirectory
  private let reflection: GatewayReflection
  private let cors: CORSPolicy
  private let pages: WebPages
  /// The default and the cap of a call's deadline, as for gRPC callers.
  private let deadline: CallDeadline
  /// How long a request may take to arrive whole.
  let requestTimeout: Duration
  /// The local identity folder whose key signs the page's development tokens; nil: none.
  private let devTokensFrom: String?
  /// The gateway's token verifier: a web call counts against its user's share (`WebCallBudget`).
  private let verifier: TokenVerifier?
  /// The web calls answered at once, and each user's share of them.
  private let webCalls: WebCallBudget
  private let maxMessageBytes: Int
  private let gatewayServer: @Sendable () async throws -> DomainEndpoint
  private let logger: Logger
  private let ready: EventLoopPromise<ConnectResponder>

  /// - Parameter gatewayServer: the gateway's gRPC server on loopback, once it listens.
  init(
    directory: DomainDirectory, reflection: GatewayReflection, cors: CORSPolicy, maxMessageBytes: Int,
    deadline: CallDeadline, requestTimeout: Duration, pages: WebPages = WebPages(), devTokensFrom: String? = nil,
    verifier: TokenVerifier? = nil, webCalls: WebCallBudget = WebCallBudget(), logger: Logger,
    gatewayServer: @escaping @Sendable () async throws -> DomainEndpoint
  ) {
    self.verifier = verifier
    self.webCalls = webCalls
    self.deadline = deadline
    self.requestTimeout = requestTimeout
    self.pages = pages
    self.devTokensFrom = devTokensFrom
    self.directory = directory
    self.reflection = reflection
    self.cors = cors
    self.maxMessageBytes = maxMessageBytes
    self.gatewayServer = gatewayServer
    self.logger = logger
    self.ready = MultiThreadedEventLoopGroup.singleton.any().makePromise()
  }

  deinit { ready.fail(CancellationError()) }

  /// The responder, and how long a request may take to arrive whole, once up.
  var side: (responder: ConnectResponder, requestTimeout: Duration) {
    get async throws { (try await ready.futureResult.get(), requestTimeout) }
  }

  func run() async throws {
    let client: GRPCClient<HTTP2ClientTransport.Posix>
    do {
      let server = try await gatewayServer()
      var config = HTTP2ClientTransport.Posix.Config.defaults
      config.connection.maxIdleTime = nil
      let cap = ServiceTransport.transportCap(for: 0)
      client = GRPCClient(
        transport: try HTTP2ClientTransport.Posix(
          target: server.target, transportSecurity: .plaintext, config: config,
          serviceConfig: ServiceConfig(methodConfig: [
            MethodConfig(names: [.init(service: "")], maxRequestMessageBytes: cap, maxResponseMessageBytes: cap)
          ])))
      let reflection = self.reflection
      let devTokens = try devTokensFrom.map {
        let folder = URL(fileURLWithPath: $0)
        return DevTokens(
          issuer: try LocalIssuer.loadOrCreate(in: folder), secret: try DevTokenSecret.loadOrCreate(in: folder))
      }
      if let devTokensFrom {
        logger.notice(
          "development tokens: POST /dev/token signs a token for any user, for a page on loopback that holds the secret in \(DevTokenSecret.fileName) (the web app's address: …/#dev=<secret>)",
          metadata: ["identity": "\(devTokensFrom)"])
      }
      let responder = ConnectResponder(
        upstream: ConnectUpstream(gateway: client, directory: directory, deadline: deadline),
        schema: { reflection.schema() },
        cors: cors, maxMessageBytes: maxMessageBytes, pages: pages, devTokens: devTokens, verifier: verifier,
        calls: webCalls)
      ready.succeed(responder)
    } catch {
      ready.fail(error)
      throw error
    }
    try await withTaskCancellationOrGracefulShutdownHandler {
      try await client.runConnections()
    } onCancelOrGracefulShutdown: {
      client.beginGracefulShutdown()
    }
  }
}
