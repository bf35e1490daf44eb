import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
@testable import Gateway
import IntentMeshProtos
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
@testable import Messaging
@testable import ServiceKit
import SwiftProtobuf
import Testing

/// TLS end to end, with certificates made at test time: a domain serving TLS (and mutual TLS), the
/// gateway's public port (the relay) over TLS with ALPN h2, and the gateway reaching the domain over
/// mutual TLS on both of its paths (relayed streams and its own gRPC client).
@Suite("TLS: domains, the relay and mutual TLS to the domains", .serialized)
struct TLSTests {
  typealias Transport = HTTP2ClientTransport.Posix

  /// UnicornChat on a loopback port with `tls`, until `body` returns.
  static func withMessaging<T: Sendable>(
    tls: ServerTLS, host: String = "127.0.0.1", _ body: (Int) async throws -> T
  ) async throws -> T {
    var logger = Logger(label: "test.tls")
    logger.logLevel = .critical
    let path = TemporaryDatabase.path(named: "tls-messaging")
    defer { TemporaryDatabase.remove(path) }
    let store = try await SQLiteStore.open(path: path, logger: logger)
    let prepared = try await PreparedDomain.prepare(
      definition: UnicornChat.definition(), store: store, manifestDirectory: Self.manifest, now: { Date() },
      logger: logger)
    prepared.board.set(.serving, for: "")
    let server = GRPCServer(
      transport: ServiceTransport.http2(host: host, port: 0, maxRequestMessageBytes: 4 << 20, tls: tls),
      services: prepared.services, interceptors: try await TestIdentity.serverInterceptors())
    do {
      let result = try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.serve() }
        let port = try #require(try await server.listeningAddress?.ipv4?.port)
        let result = try await body(port)
        prepared.board.finish()
        server.beginGracefulShutdown()
        try await group.waitForAll()
        return result
      }
      try await store.close()
      return result
    } catch {
      try? await store.close()
      throw error
    }
  }

  static let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Services/Messaging/Manifest")

  static let search = Intentmesh_V1_ResolveRequest.with {
    $0.context = .with { $0.userID = "diana" }
    $0.intent = .with { $0.intentClass = "INSearchForMessagesIntent" }
  }

  /// The code of a Resolve through `security` to `port` (nil when it succeeds).
  static func resolve(port: Int, _ security: Transport.TransportSecurity, host: String = "127.0.0.1") async
    -> RPCError.Code?
  {
    do {
      let transport = try Transport(target: DomainEndpoint(host: host, port: port).target, transportSecurity: security)
      return try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) { grpc in
        var options = CallOptions.defaults
        // Generous: "localhost" may be tried as ::1 first, and a loaded machine is slow to hand shake.
        options.timeout = .seconds(15)
        _ = try await Intentmesh_V1_IntentsExtension.Client(wrapping: grpc).resolve(Self.search, options: options)
        return nil
      }
    } catch let error as RPCError {
      return error.code
    } catch {
      return .unknown
    }
  }

  @Test("a domain over TLS answers a client that trusts its CA, by name and by IP; not h2c, not an untrusting client")
  func domainTLS() async throws {
    let certificates = try TestCertificates.make()
    defer { certificates.remove() }
    let tls = ServerTLS(certificateChain: certificates.serverCertificate, privateKey: certificates.serverKey)
    try await Self.withMessaging(tls: tls) { port in
      let trusting = ClientTLS(trustRoots: certificates.caCertificate).transportSecurity
      #expect(await Self.resolve(port: port, trusting) == nil)
      #expect(await Self.resolve(port: port, trusting, host: "localhost") == nil)
      #expect(await Self.resolve(port: port, .plaintext) != nil)
      // The system's roots do not know the test CA.
      #expect(await Self.resolve(port: port, ClientTLS(trustRoots: nil).transportSecurity) != nil)
    }
  }

  @Test("a domain under mutual TLS refuses clients without a certificate or with another CA's")
  func domainMutualTLS() async throws {
    let certificates = try TestCertificates.make()
    defer { certificates.remove() }
    let tls = ServerTLS(
      certificateChain: certificates.serverCertificate, privateKey: certificates.serverKey,
      clientCA: certificates.caCertificate)
    try await Self.withMessaging(tls: tls) { port in
      let ca = certificates.caCertificate
      #expect(await Self.resolve(port: port, ClientTLS(trustRoots: ca).transportSecurity) != nil)
      let stranger = ClientTLS(
        trustRoots: ca, certificateChain: certificates.strangerCertificate, privateKey: certificates.strangerKey)
      #expect(await Self.resolve(port: port, stranger.transportSecurity) != nil)
      let gateway = ClientTLS(
        trustRoots: ca, certificateChain: certificates.clientCertificate, privateKey: certificates.clientKey)
      #expect(await Self.resolve(port: port, gateway.transportSecurity) == nil)
    }
  }

  @Test(
    "the gateway over TLS (relay, ALPN h2) reaches a mutual-TLS domain on both paths; without its certificate, or at an address found under a name its certificate does not hold, it reaches none"
  )
  func gatewayTLS() async throws {
    let certificates = try TestCertificates.make()
    defer { certificates.remove() }
    let domainTLS = ServerTLS(
      certificateChain: certificates.serverCertificate, privateKey: certificates.serverKey,
      clientCA: certificates.caCertificate)
    let publicTLS = ServerTLS(certificateChain: certificates.serverCertificate, privateKey: certificates.serverKey)
    let withCertificate = ClientTLS(
      trustRoots: certificates.caCertificate, certificateChain: certificates.clientCertificate,
      privateKey: certificates.clientKey)
    let withoutCertificate = ClientTLS(trustRoots: certificates.caCertificate)
    // On 127.0.0.1, which the certificate holds, and on 127.0.0.2, which it does not: there an
    // address the gateway found by resolving a name is accepted by that name only.
    let cases: [(host: String, ClientTLS, serverName: String?, reaches: Bool)] = [
      ("127.0.0.1", withCertificate, nil, true), ("127.0.0.1", withoutCertificate, nil, false),
      ("127.0.0.2", withCertificate, "localhost", true), ("127.0.0.2", withCertificate, "elsewhere.test", false),
      ("127.0.0.2", withCertificate, nil, false),
    ]
    for (host, upstream, serverName, reaches) in cases {
      try await Self.withMessaging(tls: domainTLS, host: host) { domainPort in
        try await Self.withGateway(
          domain: DomainEndpoint(host: host, port: domainPort, serverName: serverName), publicTLS: publicTLS,
          upstream: upstream
        ) { port, directory in
          let client = ClientTLS(trustRoots: certificates.caCertificate).transportSecurity
          #expect(directory.statuses.contains { $0.1.manifest != nil } == reaches, "as \(serverName ?? "its address")")
          // The relayed path (stream to the domain) and the gateway's own (Interact over its client).
          let relayed = await Self.resolve(port: port, client)
          #expect(reaches ? relayed == nil : relayed != nil, "relayed: \(String(describing: relayed))")
          let interacted: RPCError.Code? = await {
            do {
              let transport = try Transport(target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: client)
              return try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) {
                grpc in
                let turn = try await Intentmesh_Gateway_V1_Gateway.Client(wrapping: grpc).interact(
                  .with {
                    $0.context = Self.search.context; $0.intent = Self.search.intent
                  })
                #expect(turn.appName == "UnicornChat")
                return nil
              }
            } catch let error as RPCError { return error.code } catch { return .unknown }
          }()
          #expect(reaches ? interacted == nil : interacted != nil, "Interact: \(String(describing: interacted))")
          // The public port speaks only TLS.
          #expect(await Self.resolve(port: port, .plaintext) != nil)
        }
      }
    }
  }

  /// A gateway in front of the domain at `domain`, as the executable assembles it: its relay on
  /// TLS, its directory and relay reaching the domain with `upstream`.
  static func withGateway(
    domain: DomainEndpoint, publicTLS: ServerTLS, upstream: ClientTLS,
    _ body: (Int, DomainDirectory) async throws -> Void
  ) async throws {
    var logger = Logger(label: "test.tls.gateway")
    logger.logLevel = .critical
    let configuration = GatewayConfiguration(
      host: "127.0.0.1", port: 0, domains: [domain], refreshInterval: .milliseconds(200),
      defaultTimeout: .seconds(20), maximumTimeout: .seconds(30), logLevel: .critical,
      authentication: TestIdentity.authentication, tls: publicTLS, upstreamTLS: upstream)
    try await TestGateway.serve(configuration, logger: logger) { application, port in
      let directory = application.directory
      for _ in 0..<100 {
        if directory.statuses.allSatisfy({ $0.1.manifest != nil }) { break }
        try await Task.sleep(for: .milliseconds(50))
      }
      try await body(port, directory)
    }
  }
}
