import Crypto
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
@testable import Gateway
import IntentMeshProtos
import IntentsKitTesting
@testable import ServiceKit
import SwiftProtobuf
import Testing

/// Every bad credential is UNAUTHENTICATED, says which, and reaches no handler: on a domain's own
/// port, through the relay, and through the gateway's own RPCs. Describe, health and the route list
/// stay open.
@Suite("Identity: bad credentials over sockets", .serialized)
struct BadCredentialTests {
  typealias Harness = TestGateway
  typealias Transport = HTTP2ClientTransport.Posix

  static let now = Date().timeIntervalSince1970

  static func claims(
    sub: String = "diana", iss: String = LocalIssuer.defaultIssuer, aud: String = LocalIssuer.defaultAudience,
    exp: Double? = now + 600, nbf: Double? = nil
  ) -> AccessTokenClaims {
    AccessTokenClaims(sub: sub, iss: iss, aud: [aud], exp: exp, nbf: nbf, iat: now)
  }

  /// (what is wrong, the authorization header or nil for none, words the status message contains)
  static func cases() throws -> [(String, String?, String)] {
    let issuer = TestIdentity.issuer
    let stranger = LocalIssuer(signingKey: P256.Signing.PrivateKey())
    let payload = try JSONEncoder().encode(claims())
    let none = LocalIssuer.compactJWS(header: #"{"alg":"none","kid":"\#(issuer.keyID)"}"#, payload: payload) { _ in
      Data()
    }
    return [
      ("missing", nil, "missing credentials"),
      ("malformed", "Bearer not-a-jwt", "malformed bearer token"),
      ("not bearer", "Basic ZGlhbmE6c2VjcmV0", "scheme must be Bearer"),
      ("expired", "Bearer \(try issuer.sign(claims(exp: now - 3600)))", "token expired"),
      ("not yet valid", "Bearer \(try issuer.sign(claims(nbf: now + 3600)))", "not yet valid"),
      ("wrong issuer", "Bearer \(try issuer.sign(claims(iss: "https://elsewhere.example")))", "wrong token issuer"),
      ("wrong audience", "Bearer \(try issuer.sign(claims(aud: "another-api")))", "wrong token audience"),
      ("unknown kid", "Bearer \(try issuer.sign(claims(), keyID: "retired-key"))", "unknown signing key"),
      ("forged signature", "Bearer \(try stranger.sign(claims(), keyID: issuer.keyID))", "signature does not verify"),
      ("alg none", "Bearer \(none)", "algorithm none is refused"),
    ]
  }

  static func metadata(_ header: String?) -> Metadata {
    var metadata = Metadata()
    if let header { metadata.addString(header, forKey: "authorization") }
    return metadata
  }

  /// The status of `call`, which must fail.
  static func status(_ call: () async throws -> Void) async -> RPCError? {
    do {
      try await call()
      return nil
    } catch let error as RPCError {
      return error
    } catch {
      return RPCError(code: .unknown, message: "\(error)")
    }
  }

  static func client(port: Int, _ body: (GRPCClient<Transport>) async throws -> Void) async throws {
    let transport = try Transport(target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
    try await withGRPCClient(transport: transport) { try await body($0) }
  }

  @Test("each bad credential: UNAUTHENTICATED saying which, on the domain, through the relay and the gateway")
  func badCredentials() async throws {
    let horn = FakeDomain(appName: "HornChat", intents: ["INHornIntent"])
    try await Harness.run(fakes: [horn]) { harness in
      let hornPort = harness.fakes[0].1.port
      let hornResolve = Intentmesh_V1_ResolveRequest.with {
        $0.intent = try! Harness.intent("INHornIntent")
      }
      let chatResolve = Intentmesh_V1_ResolveRequest.with {
        $0.intent = try! Harness.intent("INSearchForMessagesIntent", app: "UnicornChat")
      }
      for (name, header, words) in try Self.cases() {
        let metadata = Self.metadata(header)
        // A domain's own port: UnicornChat (the runtime's service) and a bare service (HornChat).
        for (port, request) in [(harness.messagingPort, chatResolve), (hornPort, hornResolve)] {
          try await Self.client(port: port) { grpc in
            let error = await Self.status {
              _ = try await Intentmesh_V1_IntentsExtension.Client(wrapping: grpc).resolve(request, metadata: metadata)
            }
            #expect(error?.code == .unauthenticated, "\(name) on port \(port): \(String(describing: error))")
            #expect(error?.message.contains(words) == true, "\(name): \(String(describing: error?.message))")
          }
        }
        // Through the relay (the pass-through path) and the gateway's own Interact and Layout.
        try await Self.client(port: harness.port) { grpc in
          let relayed = await Self.status {
            _ = try await Intentmesh_V1_IntentsExtension.Client(wrapping: grpc).resolve(hornResolve, metadata: metadata)
          }
          #expect(relayed?.code == .unauthenticated, "\(name) through the relay: \(String(describing: relayed))")
          #expect(relayed?.message.contains(words) == true, "\(name): \(String(describing: relayed?.message))")
          let gateway = Intentmesh_Gateway_V1_Gateway.Client(wrapping: grpc)
          let interacted = await Self.status {
            _ = try await gateway.interact(.with { $0.intent = chatResolve.intent }, metadata: metadata)
          }
          #expect(interacted?.code == .unauthenticated, "\(name) in Interact: \(String(describing: interacted))")
          #expect(interacted?.message.contains(words) == true, "\(name): \(String(describing: interacted?.message))")
          let laidOut = await Self.status {
            _ = try await gateway.layout(
              .with { $0.interactions = [.with { $0.intent = chatResolve.intent }] }, metadata: metadata)
          }
          #expect(laidOut?.code == .unauthenticated, "\(name) in Layout: \(String(describing: laidOut))")
        }
      }
      // No bad credential reached a handler.
      #expect(horn.seen.calls.isEmpty, "\(horn.seen.calls)")
    }
  }

  @Test("the open methods, exactly: Describe, the route list, health and reflection; not their neighbours")
  func openMethodList() {
    func isOpen(_ service: String, _ method: String) -> Bool {
      AuthenticationInterceptor.isOpen(MethodDescriptor(fullyQualifiedService: service, method: method))
    }
    #expect(isOpen("intentmesh.v1.IntentsExtension", "Describe"))
    #expect(isOpen("intentmesh.gateway.v1.Gateway", "ListRoutes"))
    #expect(isOpen("grpc.health.v1.Health", "Check") && isOpen("grpc.health.v1.Health", "Watch"))
    #expect(isOpen("grpc.reflection.v1.ServerReflection", "ServerReflectionInfo"))
    #expect(isOpen("grpc.reflection.v1alpha.ServerReflection", "ServerReflectionInfo"))
    for (service, method) in [
      ("intentmesh.v1.IntentsExtension", "Resolve"), ("intentmesh.v1.IntentsExtension", "Handle"),
      ("intentmesh.gateway.v1.Gateway", "Describe"), ("intentmesh.v1.IntentsExtension", "ListRoutes"),
      ("intentmesh.v1", "IntentsExtension/Describe"), ("intentmesh.v1.IntentsExtension/Describe", ""),
      ("", "intentmesh.v1.IntentsExtension/Describe"), ("intentmesh.v1.intentsextension", "Describe"),
    ] {
      #expect(!isOpen(service, method), "\(service) \(method)")
    }
  }

  @Test("Describe, health and the route list answer without a token; a good token is accepted")
  func openMethods() async throws {
    try await Harness.run { harness in
      try await Self.client(port: harness.messagingPort) { grpc in
        let manifest = try await Intentmesh_V1_IntentsExtension.Client(wrapping: grpc).describe(.init())
        #expect(manifest.manifest.appName == "UnicornChat")
        let health = try await Grpc_Health_V1_Health.Client(wrapping: grpc).check(.init())
        #expect(health.status == .serving)
      }
      try await Self.client(port: harness.port) { grpc in
        let routes = try await Intentmesh_Gateway_V1_Gateway.Client(wrapping: grpc).listRoutes(.init())
        #expect(routes.routes.contains { $0.intentClass == "INSendMessageIntent" })
        let answer = try await Intentmesh_V1_IntentsExtension.Client(wrapping: grpc).resolve(
          .with { $0.intent = try! Harness.intent("INSearchForMessagesIntent") },
          metadata: TestIdentity.metadata(for: "diana"))
        #expect(answer.resolvedIntent.intentClass == "INSearchForMessagesIntent")
      }
    }
  }

  @Test("context.user_id naming another user than the token's is PERMISSION_DENIED, on the domain and the gateway")
  func impersonation() async throws {
    try await Harness.run { harness in
      let request = Intentmesh_V1_ResolveRequest.with {
        $0.context = .with { $0.userID = "ezra" }
        $0.intent = try! Harness.intent("INSearchForMessagesIntent")
      }
      for port in [harness.messagingPort, harness.port] {
        try await Self.client(port: port) { grpc in
          let error = await Self.status {
            _ = try await Intentmesh_V1_IntentsExtension.Client(wrapping: grpc).resolve(
              request, metadata: TestIdentity.metadata(for: "diana"))
          }
          #expect(error?.code == .permissionDenied, "port \(port): \(String(describing: error))")
        }
      }
      try await Self.client(port: harness.port) { grpc in
        let error = await Self.status {
          _ = try await Intentmesh_Gateway_V1_Gateway.Client(wrapping: grpc).interact(
            .with {
              $0.context = request.context; $0.intent = request.intent
            }, metadata: TestIdentity.metadata(for: "diana"))
        }
        #expect(error?.code == .permissionDenied, "Interact: \(String(describing: error))")
      }
    }
  }
}
