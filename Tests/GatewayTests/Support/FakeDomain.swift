import SwiftProtobuf
import Foundation
import GRPCCore
import IntentMeshProtos
@testable import IntentsKit
import Synchronization

/// A domain whose manifest a test can change while it runs, and that records what reached it.
final class FakeDomain: Intentmesh_V1_IntentsExtension.ServiceProtocol, Sendable {
  struct Seen: Sendable {
    var calls: [String] = []
    var timeouts: [String] = []
    var requestIDs: [String] = []
    var custom: [String] = []
  }

  private let manifestState: Mutex<Intentmesh_V1_ExtensionManifest>
  private let seenState = Mutex(Seen())
  /// How long Resolve takes.
  let resolveDelay: Duration
  /// The full name of every intent's payload.
  let payloadType: String
  /// Served beside it on its socket (reflection of its own types, say).
  let extraServices: [any RegistrableRPCService]

  init(
    appName: String, alternatives: [String] = [], intents: [String], restricted: [String] = [],
    resolveDelay: Duration = .zero, payloadType: String = "google.protobuf.Empty",
    extraServices: [any RegistrableRPCService] = []
  ) {
    self.manifestState = Mutex(
      Self.manifest(
        appName: appName, alternatives: alternatives, intents: intents, restricted: restricted,
        payloadType: payloadType))
    self.resolveDelay = resolveDelay
    self.payloadType = payloadType
    self.extraServices = extraServices
  }

  /// A second messaging app: UnicornChat's SendMessage (its payload type, its two parameters) and
  /// a model that says it as UnicornChat's does, so a sentence is both apps' to take.
  static func messaging(appName: String) -> FakeDomain {
    let domain = FakeDomain(
      appName: appName, intents: ["INSendMessageIntent"], payloadType: "intentmesh.messaging.v1.SendMessageIntent")
    domain.manifestState.withLock { manifest in
      manifest.intents[0].parameters = [
        .with {
          $0.keyPath = "recipients"; $0.isArray = true; $0.valueType = "intentmesh.v1.Person"
        },
        .with {
          $0.keyPath = "content"; $0.valueType = "google.protobuf.StringValue"
        },
      ]
      manifest.interactionModels = [
        .with {
          $0.intentClass = "INSendMessageIntent"
          $0.slots = [
            .with {
              $0.name = "recipients"; $0.kind = .person
            },
            .with {
              $0.name = "content"; $0.kind = .text
            },
          ]
          $0.samples = ["send {recipients} (a|an) (message|text) [saying|that says] {content}"]
        }
      ]
    }
    return domain
  }

  static func manifest(
    appName: String, alternatives: [String], intents: [String], restricted: [String], payloadType: String
  ) -> Intentmesh_V1_ExtensionManifest {
    .with {
      $0.appName = appName
      $0.alternativeAppNames = alternatives.map { name in .with { $0.name = name } }
      $0.intents = intents.map { intentClass in
        .with {
          $0.intentClass = intentClass
          $0.payloadType = payloadType
          $0.restrictedWhileLocked = restricted.contains(intentClass)
          $0.parameters = [
            .with {
              $0.keyPath = "thing"; $0.prompt = "Which thing?"
            }
          ]
        }
      }
      $0.intentsRestrictedWhileLocked = restricted
      $0.vocabularyTypes = [.contactName]
    }
  }

  var seen: Seen { seenState.withLock { $0 } }

  func setIntents(_ intents: [String]) {
    manifestState.withLock { manifest in
      manifest = Self.manifest(
        appName: manifest.appName, alternatives: manifest.alternativeAppNames.map(\.name), intents: intents,
        restricted: manifest.intentsRestrictedWhileLocked, payloadType: payloadType)
    }
  }

  private func record(_ call: String, _ metadata: Metadata) {
    seenState.withLock { seen in
      seen.calls.append(call)
      seen.timeouts += metadata[stringValues: "grpc-timeout"].map { $0 }
      seen.requestIDs += metadata[stringValues: "x-request-id"].map { $0 }
      seen.custom += metadata[stringValues: "x-custom"].map { $0 }
    }
  }

  func describe(
    request: ServerRequest<Intentmesh_V1_DescribeRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_V1_DescribeResponse> {
    ServerResponse(message: .with { $0.manifest = manifestState.withLock { $0 } })
  }

  func resolve(
    request: ServerRequest<Intentmesh_V1_ResolveRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_V1_ResolveResponse> {
    record("Resolve", request.metadata)
    if resolveDelay > .zero {
      // The delay, unless the caller leaves first (grpc-swift says so through the context).
      let delay = resolveDelay
      let left = try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
          try await Task.sleep(for: delay)
          return false
        }
        group.addTask {
          try await context.cancellation.cancelled
          return true
        }
        defer { group.cancelAll() }
        return try await group.next() ?? false
      }
      if left {
        record("Resolve cancelled", request.metadata)
        throw RPCError(code: .cancelled, message: "the caller left")
      }
    }
    return ServerResponse(
      message: .with {
        $0.resolvedIntent = request.message.intent
        $0.complete = true
        $0.resolutions = [
          .with {
            $0.parameter = "thing"; $0.results = [.with { $0.notRequired = .init() }]
          }
        ]
      })
  }

  func confirm(
    request: ServerRequest<Intentmesh_V1_ConfirmRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_V1_ConfirmResponse> {
    record("Confirm", request.metadata)
    return ServerResponse(
      message: .with {
        $0.response = .with {
          $0.codeName = "ready"; $0.code = 1; $0.intentClass = request.message.intent.intentClass
        }
        $0.interaction = .with {
          $0.intent = request.message.intent; $0.intentHandlingStatus = .ready
        }
      })
  }

  func handle(
    request: ServerRequest<Intentmesh_V1_HandleRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_V1_HandleResponse> {
    record("Handle", request.metadata)
    return ServerResponse(
      message: .with {
        $0.response = .with {
          $0.codeName = "success"; $0.code = 3; $0.intentClass = request.message.intent.intentClass
        }
        $0.interaction = .with {
          $0.identifier = "fake-\(request.message.intent.identifier)"
          $0.intent = request.message.intent
          $0.intentHandlingStatus = .success
        }
      })
  }

  func configureView(
    request: ServerRequest<Intentmesh_V1_ConfigureViewRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_V1_ConfigureViewResponse> {
    record("ConfigureView", request.metadata)
    return ServerResponse(message: .init())
  }

  func setUserVocabulary(
    request: ServerRequest<Intentmesh_V1_SetUserVocabularyRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_V1_SetUserVocabularyResponse> {
    record("SetUserVocabulary", request.metadata)
    return ServerResponse(message: .with { $0.storedCount = Int32(request.message.strings.count) })
  }

  func startSendingUpdates(
    request: ServerRequest<Intentmesh_V1_StartSendingUpdatesRequest>, context: ServerContext
  ) async throws -> StreamingServerResponse<Intentmesh_V1_LiveUpdate> {
    if request.message.intent.identifier == "endless" {
      // One update, then nothing until the RPC is cancelled (the client left); record both ends. A
      // client may leave before the update is written: the stream still started and still ends.
      return StreamingServerResponse { writer in
        self.record("StartSendingUpdates", request.metadata)
        try? await writer.write(.with { $0.response = .with { $0.codeName = "received" } })
        try? await context.cancellation.cancelled
        self.record("StartSendingUpdates cancelled", request.metadata)
        return [:]
      }
    }
    record("StartSendingUpdates", request.metadata)
    return StreamingServerResponse { writer in
      for phase in ["received", "confirmed", "completed"] {
        try await writer.write(.with { $0.response = .with { $0.codeName = phase } })
      }
      return [:]
    }
  }
}
