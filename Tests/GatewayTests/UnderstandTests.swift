import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
@testable import Gateway
import IntentMeshProtos
import IntentsKitTesting
import MessagingProtos
import SwiftProtobuf
import Testing

/// Words in, over real sockets: `Understand` with UnicornChat's own interaction model, its
/// identity check and bad input, and `Interact` started from words — on to UnicornChat's
/// questions, "Which app?" when a second messaging app could take the sentence, and nothing for a
/// sentence no app takes.
@Suite("Gateway: Understand and Interact from words")
struct UnderstandTests {
  static func request(_ text: String, app: String = "") -> Intentmesh_Gateway_V1_UnderstandRequest {
    .with {
      $0.context = TestGateway.context
      $0.text = text
      $0.appName = app
    }
  }

  @Test("the seeds' sentence: UnicornChat's SendMessage, its payload as said, each slot with where it stands")
  func understands() async throws {
    try await TestGateway.run { gateway in
      let text = "Send Sparkle Sparkly a message on UnicornChat saying are you ready?"
      let answer = try await gateway.gatewayClient.understand(Self.request(text))
      let best = try #require(answer.candidates.first)
      #expect(best.intent.intentClass == "INSendMessageIntent" && best.intent.appName == "UnicornChat")
      #expect(best.confidence > 0.8 && best.confidence <= 1)
      let payload = try Intentmesh_Messaging_V1_SendMessageIntent(unpackingAny: best.intent.payload)
      #expect(payload.recipients.map(\.displayName) == ["Sparkle Sparkly"])
      #expect(payload.content == "are you ready")
      let scalars = Array(text.unicodeScalars)
      for slot in best.slots {
        #expect(String(String.UnicodeScalarView(scalars[Int(slot.start)..<Int(slot.end)])) == slot.text)
      }
      #expect(best.slots.map(\.name).sorted() == ["content", "recipients"])
      // The candidate goes straight into Resolve: the domain settles the name (Sparkle Sparkly is
      // Scott's nickname, as in WWDC 2016 session 225).
      let resolved = try await gateway.extensionClient.resolve(
        .with {
          $0.context = TestGateway.context; $0.intent = best.intent
        })
      let recipient = resolved.resolutions.first { $0.parameter == "recipients" }?.results.first
      #expect(recipient?.success.value.displayText == "Scott Andrus", "\(String(describing: recipient))")
      // What no app says: no candidate.
      #expect(try await gateway.gatewayClient.understand(Self.request("what's the weather like")).candidates.isEmpty)
    }
  }

  @Test("a token is needed; another user's token reads the same sentence the same way (no user data is read)")
  func identity() async throws {
    try await TestGateway.run { gateway in
      let transport = try HTTP2ClientTransport.Posix(
        target: .ipv4(address: "127.0.0.1", port: gateway.port), transportSecurity: .plaintext)
      try await withGRPCClient(transport: transport) { grpc in
        let bare = Intentmesh_Gateway_V1_Gateway.Client(wrapping: grpc)
        await expectStatus(.unauthenticated, containing: ["authorization"]) {
          _ = try await bare.understand(Self.request("send Scott a message saying hi"))
        }
        // Each caller as the token says (the context names no user).
        var request = Self.request("send Scott a message saying hi")
        request.context.userID = ""
        let asDiana = try await bare.understand(request, metadata: TestIdentity.metadata(for: "diana"))
        let asScott = try await bare.understand(request, metadata: TestIdentity.metadata(for: "scott"))
        #expect(asDiana == asScott)
        #expect(!asDiana.candidates.isEmpty)
      }
    }
  }

  @Test("bad input: empty, longer than 1,000 characters, control characters — INVALID_ARGUMENT saying which")
  func badInput() async throws {
    try await TestGateway.run { gateway in
      for (text, says) in [
        ("", "empty"), ("   ", "empty"), (String(repeating: "send Scott a message ", count: 60), "at most 1000"),
        ("send Scott\u{0} a message", "control character (U+0)"), ("pay \u{7}Buttercup", "U+7"),
        (String(repeating: "x", count: 100_000), "at most 1000"),
      ] {
        await expectStatus(.invalidArgument, containing: [says]) {
          _ = try await gateway.gatewayClient.understand(Self.request(text))
        }
      }
      // A request whose text is not UTF-8 does not decode: INVALID_ARGUMENT from the transport's codec.
      var bytes: [UInt8] = try Self.request("hi").serializedBytes()
      bytes[bytes.count - 1] = 0xFF
      let transport = try HTTP2ClientTransport.Posix(
        target: .ipv4(address: "127.0.0.1", port: gateway.port), transportSecurity: .plaintext)
      _ = try await withGRPCClient(transport: transport) { grpc in
        await #expect(throws: RPCError.self) {
          _ = try await grpc.unary(
            request: ClientRequest(message: bytes, metadata: TestIdentity.metadata(for: "diana")),
            descriptor: MethodDescriptor(fullyQualifiedService: "intentmesh.gateway.v1.Gateway", method: "Understand"),
            serializer: RawBytesSerializer(), deserializer: RawBytesDeserializer(), options: .defaults
          ) { try $0.message }
        }
      }
    }
  }

  @Test(
    "Interact from words: on to the domain's question; NEEDS_APP between two apps, then the one picked; NOT_UNDERSTOOD")
  func interactFromWords() async throws {
    try await TestGateway.run(fakes: [FakeDomain.messaging(appName: "PonyChat")]) { gateway in
      let text = "send Diana a message saying hello"
      let both = try await gateway.gatewayClient.interact(
        .with {
          $0.context = TestGateway.context; $0.text = text
        })
      #expect(both.stage == .needsApp)
      #expect(Set(both.candidates.map(\.intent.appName)) == ["UnicornChat", "PonyChat"])
      #expect(both.prompt.hasPrefix("Which app?"))
      let picked = try await gateway.gatewayClient.interact(
        .with {
          $0.context = TestGateway.context; $0.text = text; $0.intent.appName = "UnicornChat"
        })
      #expect(picked.stage == .needsParameter && picked.prompt == "Which Diana?")
      #expect(picked.appName == "UnicornChat" && picked.intent.intentClass == "INSendMessageIntent")
      #expect(!picked.intent.identifier.isEmpty)
      #expect(picked.candidates.first?.intent.appName == "UnicornChat")
      let none = try await gateway.gatewayClient.interact(
        .with {
          $0.context = TestGateway.context; $0.text = "tell me a joke"
        })
      #expect(none.stage == .notUnderstood && !none.prompt.isEmpty && none.candidates.isEmpty)
    }
  }
}
