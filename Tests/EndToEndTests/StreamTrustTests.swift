import Crypto
import Foundation
import GRPCCore
import GRPCInProcessTransport
import IntentMeshProtos
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
@testable import Messaging
import MessagingProtos
import SwiftProtobuf
@testable import ServiceKit
import Synchronization
import Testing

/// A live-update stream lasts only while its token holds: UnicornChat's message search followed
/// live, served as the service serves it (its interceptors, a JWKS file), ends with UNAUTHENTICATED
/// when the token expires or its key leaves the key set — and not when a key is only added.
@Suite("Identity: long streams end when trust ends", .serialized)
struct StreamTrustTests {
  /// A key, its JWKS file, and a verifier of that file without leeway.
  struct Identity {
    let folder: URL
    let issuer: LocalIssuer
    let verifier: TokenVerifier
    var jwks: URL { folder.appendingPathComponent(LocalIssuer.jwksFileName) }

    init() async throws {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stream-trust-\(UUID().uuidString)")
      self.folder = folder
      issuer = try LocalIssuer.loadOrCreate(in: folder)
      var logger = Logger(label: "test.stream-trust")
      logger.logLevel = .critical
      verifier = TokenVerifier(
        source: .file(folder.appendingPathComponent(LocalIssuer.jwksFileName).path),
        policy: TokenPolicy(
          issuer: LocalIssuer.defaultIssuer, audience: LocalIssuer.defaultAudience, leewaySeconds: 0),
        unknownKeyRefreshInterval: 0, logger: logger)
      try await verifier.loadKeys()
    }

    /// Publishes the JWKS of `issuers` and has the verifier read it.
    func publish(_ issuers: [LocalIssuer]) async throws {
      let keys = issuers.map { issuer in
        String(issuer.jwks.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" })
      }
      try Data(#"{"keys":[\#(keys.joined(separator: ","))]}"#.utf8).write(to: jwks)
      await verifier.refresh()
    }
  }

  /// How a followed search ended: its status code and message, the updates it got, and when.
  struct Ending: Sendable {
    var code: RPCError.Code?
    var message: String
    var updates: Int
    var after: Duration
  }

  /// UnicornChat served with `identity`'s verifier; follows Diana's message search with `token`,
  /// doing `meanwhile` once the first update arrived, until the stream ends or `limit` passes.
  static func follow(
    _ identity: Identity, token: @escaping @Sendable () throws -> String, limit: Duration = .seconds(8),
    meanwhile: @escaping @Sendable () async throws -> Void = {}
  ) async throws -> Ending {
    var logger = Logger(label: "test.messaging")
    logger.logLevel = .critical
    let opened = try await TestStore.open(named: "stream-trust")
    let prepared = try await PreparedDomain.prepare(
      definition: UnicornChat.definition(), store: opened.store, manifestDirectory: MessagingManifest.directory,
      now: { Date() }, logger: logger)
    let transport = InProcessTransport()
    let ending = try await withGRPCServer(
      transport: transport.server, services: prepared.services,
      interceptors: [RequestIDInterceptor(), AuthenticationInterceptor(verifier: identity.verifier)]
    ) { _ in
      try await withGRPCClient(transport: transport.client) { grpc in
        let client = Intentmesh_V1_IntentsExtension.Client(wrapping: grpc)
        // Signed once the service serves: a loaded machine takes seconds to prepare the domain.
        var metadata = Metadata()
        metadata.addString("Bearer \(try token())", forKey: "authorization")
        var options = CallOptions.defaults
        options.timeout = limit
        let started = ContinuousClock.now
        let updates = Atomic<Int>(0)
        do {
          try await client.startSendingUpdates(
            .with {
              $0.intent = .with {
                $0.intentClass = "INSearchForMessagesIntent"
                $0.payload = try! .init(message: Intentmesh_Messaging_V1_SearchForMessagesIntent())
              }
            }, metadata: metadata, options: options
          ) { response in
            for try await _ in response.messages {
              if updates.add(1, ordering: .relaxed).newValue == 1 { try await meanwhile() }
            }
          }
          return Ending(
            code: nil, message: "", updates: updates.load(ordering: .relaxed), after: ContinuousClock.now - started)
        } catch let error as RPCError {
          return Ending(
            code: error.code, message: error.message, updates: updates.load(ordering: .relaxed),
            after: ContinuousClock.now - started)
        }
      }
    }
    try await opened.dispose()
    try? FileManager.default.removeItem(at: identity.folder)
    return ending
  }

  @Test("a token that expires while its stream is open ends the stream with UNAUTHENTICATED, at its expiry")
  func expiry() async throws {
    let identity = try await Identity()
    // `exp` is whole seconds: a 6 s token expires 5–6 s after it is signed — room for the first
    // update on a loaded machine (the whole suite at once once took over 2 s to send it).
    // The client's own deadline far beyond the expiry: a stream still open then ends
    // DEADLINE_EXCEEDED, not UNAUTHENTICATED (a loaded machine once took 6.6 s to end it at expiry).
    let ending = try await Self.follow(
      identity, token: { try identity.issuer.token(subject: "diana", ttl: .seconds(6)) }, limit: .seconds(30))
    #expect(ending.code == .unauthenticated, "\(ending)")
    #expect(ending.message.contains("token expired"), "\(ending.message)")
    #expect(ending.updates >= 1)
    #expect(ending.after >= .milliseconds(4900) && ending.after < .seconds(25), "\(ending.after)")
  }

  @Test("the token's key leaves the JWKS while its stream is open: UNAUTHENTICATED within a second or two")
  func keyRemoved() async throws {
    let identity = try await Identity()
    let other = LocalIssuer(signingKey: P256.Signing.PrivateKey())
    let ending = try await Self.follow(
      identity, token: { try identity.issuer.token(subject: "diana", ttl: .seconds(3600)) }, limit: .seconds(30)
    ) {
      try await Task.sleep(for: .milliseconds(300))
      try await identity.publish([other])
    }
    #expect(ending.code == .unauthenticated, "\(ending)")
    #expect(ending.message.contains("unknown signing key"), "\(ending.message)")
    // Well before the client's own deadline (30 s): within the second the watch checks, plus a loaded machine's delay.
    #expect(ending.after < .seconds(20), "\(ending.after)")
  }

  @Test("a key added to the JWKS (a rotation starting) leaves open streams open")
  func keyAdded() async throws {
    let identity = try await Identity()
    let ending = try await Self.follow(
      identity, token: { try identity.issuer.token(subject: "diana", ttl: .seconds(3600)) }, limit: .seconds(3)
    ) {
      try await identity.publish([identity.issuer, LocalIssuer(signingKey: P256.Signing.PrivateKey())])
    }
    // It ran to the client's own deadline.
    #expect(ending.code == .deadlineExceeded, "\(ending)")
  }
}

/// UnicornChat's manifest folder in the repository.
enum MessagingManifest {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Services/Messaging/Manifest")
}
