import Foundation
import GRPCCore
import IntentsKitTesting
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import MessagingProtos
import SwiftProtobuf
import Testing

@Suite("messaging-service end to end, over real sockets", .serialized)
struct MessagingEndToEndTests {
  typealias Extension = Intentmesh_V1_IntentsExtension.Client<HTTP2ClientTransport.Posix>
  typealias Health = Grpc_Health_V1_Health.Client<HTTP2ClientTransport.Posix>

  static let context = Intentmesh_V1_RequestContext.with {
    $0.userID = "diana"; $0.timeZone = "Europe/Zurich"
  }

  func withClient<T: Sendable>(port: Int, _ body: (Extension, Health) async throws -> T) async throws -> T {
    let config = HTTP2ClientTransport.Posix.Config.defaults
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext, config: config)
    return try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) { client in
      try await body(Extension(wrapping: client), Health(wrapping: client))
    }
  }

  static func sendIntent() throws -> Intentmesh_V1_Intent {
    try .with {
      $0.intentClass = "INSendMessageIntent"
      $0.identifier = "e2e-send-1"
      $0.payload = try .init(
        message: Intentmesh_Messaging_V1_SendMessageIntent.with {
          $0.recipients = [.with { $0.displayName = "Sparkle Sparkly" }]
          $0.content = "Are you ready for your talk?"
        })
    }
  }

  @Test("serves health and intents, shuts down cleanly on SIGTERM, and keeps what it handled across a restart")
  func lifecycle() async throws {
    let file = TemporaryDatabaseFile("e2e")
    defer { file.remove() }
    let database = file.path
    let arguments = ["--port", "0", "--database", database]

    let first = try await ServiceProcess("messaging-service", arguments: arguments)
    let sent = try await withClient(port: first.port) { client, health in
      #expect(try await health.check(.init()).status == .serving)
      #expect(try await health.check(.with { $0.service = "intentmesh.v1.IntentsExtension" }).status == .serving)
      let resolved = try await client.resolve(
        .with {
          $0.context = Self.context; $0.intent = try Self.sendIntent()
        })
      #expect(resolved.complete)
      var metadata = Metadata()
      metadata.addString("e2e-request-1", forKey: "x-request-id")
      let confirmed = try await client.confirm(
        .with {
          $0.context = Self.context; $0.intent = resolved.resolvedIntent
        })
      #expect(!confirmed.confirmationToken.isEmpty)
      let handled = try await client.handle(
        .with {
          $0.context = Self.context; $0.intent = resolved.resolvedIntent
          $0.confirmationToken = confirmed.confirmationToken
        }, metadata: metadata
      ) { response in
        #expect(response.metadata[stringValues: "x-request-id"].first(where: { _ in true }) == "e2e-request-1")
        return try response.message
      }
      #expect(handled.response.codeName == "success")
      #expect(!handled.replayed)
      return try Intentmesh_Messaging_V1_SendMessageIntentResponse(unpackingAny: handled.response.payload)
    }
    #expect(sent.sentMessage.recipients.map(\.displayName) == ["Scott Andrus"])
    let status = try await first.stop(signal: SIGTERM)
    #expect(status == 0, "\(first.log)")
    #expect(first.log.contains("stopped cleanly"), "\(first.log)")

    let second = try await ServiceProcess("messaging-service", arguments: arguments)
    try await withClient(port: second.port) { client, _ in
      let resolved = try await client.resolve(
        .with {
          $0.context = Self.context; $0.intent = try Self.sendIntent()
        })
      let replay = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context; $0.intent = resolved.resolvedIntent
        })
      #expect(replay.replayed)
      #expect(try Intentmesh_Messaging_V1_SendMessageIntentResponse(unpackingAny: replay.response.payload) == sent)
      let search = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context
          $0.intent = try .with {
            $0.intentClass = "INSearchForMessagesIntent"
            $0.payload = try .init(
              message: Intentmesh_Messaging_V1_SearchForMessagesIntent.with { $0.searchTerms = ["ready for your talk"] }
            )
          }
        })
      let messages = try Intentmesh_Messaging_V1_SearchForMessagesIntentResponse(unpackingAny: search.response.payload)
        .messages
      #expect(messages.map(\.identifier) == [sent.sentMessage.identifier])
    }
    #expect(try await second.stop(signal: SIGINT) == 0)
  }

  @Test("a call past its grpc-timeout is ended by the service itself: DEADLINE_EXCEEDED, naming the method")
  func deadline() async throws {
    let file = TemporaryDatabaseFile("e2e-deadline")
    defer { file.remove() }
    let service = try await ServiceProcess("messaging-service", arguments: ["--port", "0", "--database", file.path])
    try await withClient(port: service.port) { client, _ in
      // A live search runs until it is cancelled. The client keeps no deadline of its own (no
      // CallOptions.timeout): only the header tells the service, so the answer is the service's.
      var metadata = Metadata()
      metadata.addString("300m", forKey: "grpc-timeout")
      let started = ContinuousClock.now
      let search = Intentmesh_V1_StartSendingUpdatesRequest.with {
        $0.context = Self.context
        $0.intent = .with { $0.intentClass = "INSearchForMessagesIntent" }
      }
      let error = await #expect(throws: RPCError.self) {
        try await client.startSendingUpdates(search, metadata: metadata) { response in
          for try await _ in response.messages {}
        }
      }
      #expect(error?.code == .deadlineExceeded, "\(String(describing: error))")
      #expect(error?.message.contains("IntentsExtension/StartSendingUpdates") == true)
      let elapsed = ContinuousClock.now - started
      #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(10))
      // The service goes on answering.
      let resolved = try await client.resolve(
        .with {
          $0.context = Self.context; $0.intent = try Self.sendIntent()
        })
      #expect(resolved.complete)
    }
    #expect(try await service.stop() == 0)
  }

  @Test("a port already in use fails the start loudly")
  func portInUse() async throws {
    let file = TemporaryDatabaseFile("e2e")
    defer { file.remove() }
    let database = file.path
    let first = try await ServiceProcess("messaging-service", arguments: ["--port", "0", "--database", database])
    do {
      _ = try await ServiceProcess(
        "messaging-service", arguments: ["--port", String(first.port), "--database", database + "-2"],
        timeout: .seconds(20))
      Issue.record("a second service started on a taken port")
    } catch let failure as ServiceProcess.Failure {
      #expect(failure.description.contains("exited with 1"), "\(failure.description)")
    }
    for suffix in ["-2", "-2-wal", "-2-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
    #expect(try await first.stop() == 0)
  }
}
