internal import IntentsKit
internal import Foundation
internal import GRPCCore
internal import IntentMeshProtos
internal import Logging
internal import SQLKit
internal import SwiftProtobuf
internal import ServiceKit
internal import IntentMeshCore

/// The `intentmesh.v1.IntentsExtension` service of a domain: dispatch by intent class to a fresh
/// handler, SiriKit's defaults, exactly-once Handle, view configuration and user vocabulary.
struct IntentsExtensionService: Intentmesh_V1_IntentsExtension.SimpleServiceProtocol {
  let scope: RequestScope
  let store: any IntentStore
  let confirmations: ConfirmationTokens

  init(scope: RequestScope, store: any IntentStore, confirmations: ConfirmationTokens) {
    self.scope = scope
    self.store = store
    self.confirmations = confirmations
  }

  func describe(
    request: Intentmesh_V1_DescribeRequest, context: ServerContext
  ) async throws -> Intentmesh_V1_DescribeResponse {
    .with { $0.manifest = scope.manifest.proto }
  }

  func resolve(
    request: Intentmesh_V1_ResolveRequest, context: ServerContext
  ) async throws -> Intentmesh_V1_ResolveResponse {
    // The request's intent read once: each read of a message field copies it out of its storage.
    let intent = request.intent
    return try await guarded(
      "Resolve", intentClass: intent.intentClass, outcome: { $0.complete ? "complete" : "incomplete" }
    ) {
      let (registration, intentContext) = try scope.enter(
        request.context, intentClass: intent.intentClass, identifier: intent.identifier)
      let outcome = try await registration.resolve(payload(of: intent), request.parameters, intentContext)
      return .with {
        $0.resolutions = outcome.resolutions
        $0.resolvedIntent = intent
        $0.resolvedIntent.payload = outcome.resolvedPayload
        $0.complete = outcome.complete
      }
    }
  }

  func confirm(
    request: Intentmesh_V1_ConfirmRequest, context: ServerContext
  ) async throws -> Intentmesh_V1_ConfirmResponse {
    let intent = request.intent
    return try await guarded("Confirm", intentClass: intent.intentClass, outcome: { $0.response.codeName }) {
      let (registration, intentContext) = try scope.enter(
        request.context, intentClass: intent.intentClass, identifier: intent.identifier)
      let decoded = try registration.decodeIntent(payload(of: intent))
      let answer = try await registration.confirm(decoded, intentContext)
      let status: Intentmesh_V1_IntentHandlingStatus =
        registration.requiresUserConfirmation && answer.status == .ready ? .userConfirmationRequired : answer.status
      let built = InteractionBuilder.build(
        intent: intent, answer: answer, status: status, date: intentContext.now)
      var response = Intentmesh_V1_ConfirmResponse()
      response.response = built.response
      response.interaction = built.interaction
      if registration.requiresUserConfirmation, status == .userConfirmationRequired {
        // Five minutes of the user's time: the wall clock, whatever the domain's clock (rides may
        // run theirs faster).
        response.confirmationToken = confirmations.issue(
          for: try binding(intent, decoded, registration, user: intentContext.userID), now: Date())
      }
      return response
    }
  }

  /// What a confirmation token of `intent` for `user` is bound to: what the user agrees to in it
  /// (`AgreedValues`), not the exact payload bytes — a balance that moves while the user is asked
  /// does not undo the yes.
  private func binding(
    _ intent: Intentmesh_V1_Intent, _ decoded: any SwiftProtobuf.Message, _ registration: IntentRegistration,
    user: String
  ) throws -> ConfirmationTokens.Binding {
    ConfirmationTokens.Binding(
      userID: user, intentClass: intent.intentClass, identifier: intent.identifier,
      payloadTypeURL: intent.payload.typeURL, agreed: try registration.agreedValues(decoded))
  }

  func handle(
    request: Intentmesh_V1_HandleRequest, context: ServerContext
  ) async throws -> Intentmesh_V1_HandleResponse {
    let intent = request.intent
    return try await guarded(
      "Handle", intentClass: intent.intentClass,
      outcome: { $0.replayed ? "\($0.response.codeName) (replayed)" : $0.response.codeName }
    ) {
      let (registration, intentContext) = try scope.enter(
        request.context, intentClass: intent.intentClass, identifier: intent.identifier)
      let payload = payload(of: intent)
      // Decoded once: the handler, and the comparison with a replayed Handle's payload, take it.
      let decoded = try registration.decodeIntent(payload)
      if registration.handleHasEffects, intent.identifier.isEmpty {
        throw IntentMeshError.invalidArgument(
          "Handle of \(intent.intentClass) needs intent.identifier: it is the key that makes a retried Handle take effect once"
        )
      }
      // The user's yes, for exactly this intent; checked before any effect (for an intent with
      // effects, after the ledger: a retry of a Handle that took effect replays it, whatever the
      // token's age, and changes nothing).
      let confirmed: @Sendable () throws -> Void = {
        guard registration.requiresUserConfirmation,
          let problem = confirmations.problem(
            with: request.confirmationToken,
            for: try binding(intent, decoded, registration, user: intentContext.userID),
            now: Date())
        else { return }
        throw problem.error(intentClass: intent.intentClass)
      }
      let respond: @Sendable (HandlerAnswer) -> Intentmesh_V1_HandleResponse = { answer in
        let built = InteractionBuilder.build(
          intent: intent, answer: answer, status: answer.status, date: intentContext.now)
        return .with {
          $0.response = built.response
          $0.interaction = built.interaction
        }
      }
      guard registration.handleHasEffects else {
        try confirmed()
        return respond(try await store.read { try await registration.handle(decoded, intentContext, $0) })
      }
      let payloadBytes: Data = try (payload ?? Google_Protobuf_Any()).encodedBytes()
      // A concurrent Handle of the same identifier trips the ledger's key when it records: its
      // write is run again, finds this one's entry, and replays it.
      return try await store.write(registration.handleConcurrency) { database in
        if let earlier = try await HandledIntentLedger.entry(
          userID: intentContext.userID, identifier: intent.identifier, in: database)
        {
          guard earlier.intentClass == intent.intentClass, registration.samePayload(decoded, earlier.payload) else {
            throw IntentMeshError.identifierReused(identifier: intent.identifier, intentClass: intent.intentClass)
          }
          var replay = InteractionBuilder.restored(try Intentmesh_V1_HandleResponse(serializedBytes: earlier.response))
          replay.replayed = true
          return replay
        }
        try confirmed()
        let response = respond(try await registration.handle(decoded, intentContext, database))
        try await HandledIntentLedger.record(
          userID: intentContext.userID, identifier: intent.identifier,
          entry: .init(
            intentClass: intent.intentClass, payload: payloadBytes,
            response: try InteractionBuilder.storable(response).encodedBytes()),
          at: intentContext.now.epochMilliseconds, in: database)
        return response
      }
    }
  }

  func configureView(
    request: Intentmesh_V1_ConfigureViewRequest, context: ServerContext
  ) async throws -> Intentmesh_V1_ConfigureViewResponse {
    try await guarded(
      "ConfigureView", intentClass: request.interaction.intent.intentClass, outcome: { _ in "configured" }
    ) {
      let interaction = request.interaction
      let (registration, intentContext) = try scope.enter(
        request.context, intentClass: interaction.intent.intentClass, identifier: interaction.intent.identifier)
      var displays = ParameterDisplays(interaction: interaction, registration: registration)
      for parameter in request.parameters { try displays.validate(parameter) }
      let configuration =
        try await registration.viewController?.configure(request, interaction, intentContext) ?? .declined
      var shown = request.parameters
      if configuration.configured {
        shown += configuration.parameters.filter { claimed in !shown.contains(claimed) }
      }
      let displayValues = try displays.displays(for: shown)
      return .with {
        $0.configured = configuration.configured
        $0.configuredParameters = configuration.configured ? configuration.parameters : []
        $0.desiredSize = configuration.desiredSize
        if let view = configuration.view, configuration.configured { $0.view = view }
        $0.displayValues = displayValues
      }
    }
  }

  func setUserVocabulary(
    request: Intentmesh_V1_SetUserVocabularyRequest, context: ServerContext
  ) async throws -> Intentmesh_V1_SetUserVocabularyResponse {
    try await guarded("SetUserVocabulary") {
      let userID = try UserIdentity.userID(of: request.context)
      let declared = scope.manifest.proto.vocabularyTypes
      guard declared.contains(request.vocabularyType) else {
        let names = declared.map(EnumCaseName.of).joined(separator: ", ")
        throw IntentMeshError.invalidArgument(
          "\(scope.manifest.proto.appName) takes user vocabulary of types \(names), not \(EnumCaseName.of(request.vocabularyType))"
        )
      }
      let (kept, discarded) = UserVocabulary.entries(of: request)
      try await store.write { database in
        try await UserVocabulary.replace(userID: userID, type: request.vocabularyType, with: kept, in: database)
      }
      return .with {
        $0.storedCount = Int32(kept.count)
        $0.discardedCount = Int32(discarded)
      }
    }
  }

  func startSendingUpdates(
    request: Intentmesh_V1_StartSendingUpdatesRequest,
    response: RPCWriter<Intentmesh_V1_LiveUpdate>,
    context: ServerContext
  ) async throws {
    try await guarded("StartSendingUpdates") {
      let intent = request.intent
      let (registration, intentContext) = try scope.enter(
        request.context, intentClass: intent.intentClass, identifier: intent.identifier)
      guard let liveUpdates = registration.liveUpdates else {
        throw IntentMeshError.liveUpdatesUnsupported(intentClass: intent.intentClass)
      }
      let payload = payload(of: intent)
      let scope = scope
      // A client that leaves cancels the stream's work, and with it whatever the handler waits on.
      try await RPCCancellation.cancellingWithRPC {
        try await liveUpdates(payload, intentContext) { answer in
          let built = InteractionBuilder.build(intent: intent, answer: answer, status: answer.status, date: scope.now())
          try await response.write(
            .with {
              $0.response = built.response
              $0.interaction = built.interaction
            })
        }
      }
    }
  }

  private func payload(of intent: Intentmesh_V1_Intent) -> Google_Protobuf_Any? {
    intent.hasPayload ? intent.payload : nil
  }

  /// Runs an RPC body: errors that carry a status pass through; anything else is logged with the
  /// request id and answered INTERNAL, without internals in the message.
  /// Runs a method's body, its errors mapped to statuses; with tracing on, inside a span named
  /// "Method IntentClass" with the intent class and the outcome as attributes.
  private func guarded<T: Sendable>(
    _ method: String, intentClass: String? = nil, outcome: (T) -> String = { _ in "" }, _ body: () async throws -> T
  ) async throws -> T {
    guard let intentClass, TraceExport.recordsInsideCall || scope.logger.logLevel <= .debug else {
      return try await mapped(method, body)
    }
    return try await IntentSpan.run(
      "\(method) \(intentClass)", intentClass: intentClass, logger: scope.logger, outcome: outcome
    ) { try await mapped(method, body) }
  }

  private func mapped<T: Sendable>(_ method: String, _ body: () async throws -> T) async throws -> T {
    do {
      return try await body()
    } catch let error as any RPCErrorConvertible {
      throw RPCError(code: error.rpcErrorCode, message: error.rpcErrorMessage, metadata: error.rpcErrorMetadata)
    } catch {
      throw UnexpectedErrorInterceptor.answer(for: error, method: method, logger: scope.logger)
    }
  }
}
