package import Foundation
package import IntentMeshProtos
package import SQLKit
package import SwiftProtobuf
internal import IntentMeshCore

/// One intent class a domain serves, with its handler's types erased so that dispatch by class name
/// needs no generics. Made with `IntentRegistration.handler(_:make:)`. A class, immutable: every
/// call looks its registration up, and a copy of a struct of this many closures and strings was a
/// retain and a release of each.
package final class IntentRegistration: Sendable {
  package let intentClass: String
  package let payloadType: String
  package let responseType: String
  package let parameters: [Intentmesh_V1_ParameterDeclaration]
  package let requiresUserConfirmation: Bool
  package let confirmationPrompt: String
  package let handleHasEffects: Bool
  /// How Handle's write runs beside the store's other writes.
  package let handleConcurrency: WriteConcurrency
  package let supportsLiveUpdates: Bool
  package let viewController: AnyIntentViewController?

  package let decodeIntent: @Sendable (Google_Protobuf_Any?) throws -> any SwiftProtobuf.Message
  let decodeResponse: @Sendable (Google_Protobuf_Any) throws -> any SwiftProtobuf.Message
  /// The display text of a declared parameter of a decoded intent, from its typed value (nil when
  /// `keyPath` is not a declared parameter).
  let displayParameter: @Sendable (any SwiftProtobuf.Message, String) -> String?
  package let resolve: @Sendable (Google_Protobuf_Any?, [String], IntentContext) async throws -> ResolveOutcome
  /// Confirms an intent `decodeIntent` decoded (of this registration's payload type).
  package let confirm: @Sendable (any SwiftProtobuf.Message, IntentContext) async throws -> HandlerAnswer
  /// What the user agrees to in an intent `decodeIntent` decoded: the values a confirmation binds.
  package let agreedValues: @Sendable (any SwiftProtobuf.Message) throws -> AgreedValues
  /// Handles an intent `decodeIntent` decoded (of this registration's payload type).
  package let handle:
    @Sendable (any SwiftProtobuf.Message, IntentContext, any SQLDatabase) async throws -> HandlerAnswer
  /// Whether stored payload bytes decode to the same intent as one `decodeIntent` decoded.
  package let samePayload: @Sendable (any SwiftProtobuf.Message, Data) -> Bool
  package let liveUpdates:
    (
      @Sendable (Google_Protobuf_Any?, IntentContext, @escaping @Sendable (HandlerAnswer) async throws -> Void)
        async throws -> Void
    )?

  /// Registers handler type `H`; `make` builds a fresh, stateless handler for every call.
  package static func handler<H: IntentHandler>(
    _ type: H.Type,
    view: AnyIntentViewController? = nil,
    make: @escaping @Sendable () -> H
  ) -> IntentRegistration {
    IntentRegistration(type, view: view, make: make, liveUpdates: nil)
  }

  /// Registers a handler whose intent streams live updates (SiriKit's `startSendingUpdates(for:to:)`).
  package static func liveHandler<H: LiveUpdatingIntentHandler>(
    _ type: H.Type,
    view: AnyIntentViewController? = nil,
    make: @escaping @Sendable () -> H
  ) -> IntentRegistration {
    IntentRegistration(type, view: view, make: make) { payload, context, send in
      let intent = try IntentPayload.decode(H.Intent.self, from: payload, intentClass: H.intentClass)
      try await make().startSendingUpdates(for: intent, context: context) { answer in
        try await send(try HandlerAnswer(answer))
      }
    }
  }

  private init<H: IntentHandler>(
    _ type: H.Type,
    view: AnyIntentViewController?,
    make: @escaping @Sendable () -> H,
    liveUpdates: (
      @Sendable (Google_Protobuf_Any?, IntentContext, @escaping @Sendable (HandlerAnswer) async throws -> Void)
        async throws ->
        Void
    )?
  ) {
    let intentClass = H.intentClass
    self.intentClass = intentClass
    self.payloadType = H.Intent.protoMessageName
    self.responseType = H.Response.protoMessageName
    // A handler's parameters are declarations: built once here, not on every call.
    let declared = H.parameters
    self.parameters = declared.map(\.declaration)
    self.requiresUserConfirmation = H.requiresUserConfirmation
    self.confirmationPrompt = H.confirmationPrompt
    self.handleHasEffects = H.handleHasEffects
    self.handleConcurrency = H.handleConcurrency
    self.supportsLiveUpdates = liveUpdates != nil
    self.viewController = view
    self.liveUpdates = liveUpdates
    self.decodeIntent = { try IntentPayload.decode(H.Intent.self, from: $0, intentClass: intentClass) }
    self.decodeResponse = { try H.Response(unpackingAny: $0) }
    self.displayParameter = { message, keyPath in
      guard let intent = message as? H.Intent else { return nil }
      return declared.first { $0.keyPath == keyPath }?.display(intent)
    }
    self.resolve = { payload, requested, context in
      // The decoded intent is the one resolved values are written into: no second reference to its
      // fields' storage, so the first write does not copy every field.
      var resolved = try IntentPayload.decode(H.Intent.self, from: payload, intentClass: intentClass)
      let chosen = try Self.chosenParameters(declared, requested: requested, intentClass: intentClass)
      var resolutions: [Intentmesh_V1_ParameterResolution] = []
      var complete = true
      // One handler for all the parameters of a Resolve, as SiriKit resolves an intent's
      // parameters with one handler: what it reads once, it keeps for the request.
      let handler = make()
      for parameter in chosen {
        let outcome = try await parameter.run(handler, resolved, context)
        outcome.apply(&resolved)
        complete = complete && outcome.settled
        resolutions.append(
          .with {
            $0.parameter = parameter.keyPath
            $0.isArray = parameter.isArray
            $0.results = outcome.results
          })
      }
      return ResolveOutcome(
        resolutions: resolutions, resolvedPayload: try .packing(resolved), complete: complete)
    }
    self.confirm = { decoded, context in
      let intent = try Self.decoded(decoded, as: H.Intent.self)
      return try HandlerAnswer(try await make().confirm(intent: intent, context: context))
    }
    self.agreedValues = { decoded in
      var intent = try Self.decoded(decoded, as: H.Intent.self)
      var parts: [AgreedValues.Part] = []
      parts.reserveCapacity(declared.count)
      for parameter in declared {
        parts.append(AgreedValues.Part(name: parameter.keyPath, bytes: try parameter.agree(&intent)))
      }
      var options = BinaryEncodingOptions()
      options.useDeterministicOrdering = true
      return AgreedValues(parameters: parts, whole: try intent.serializedBytes(options: options))
    }
    self.handle = { decoded, context, database in
      let intent = try Self.decoded(decoded, as: H.Intent.self)
      return try HandlerAnswer(try await make().handle(intent: intent, context: context, database: database))
    }
    self.samePayload = { decoded, stored in
      guard let now = decoded as? H.Intent, let storedAny = try? Google_Protobuf_Any(serializedBytes: stored),
        let earlier = try? IntentPayload.decode(H.Intent.self, from: storedAny, intentClass: intentClass)
      else { return false }
      return earlier.isEqualTo(message: now)
    }
  }

  /// `decoded` as the intent type it must be: `decodeIntent` of the same registration made it.
  private static func decoded<Intent: SwiftProtobuf.Message>(
    _ decoded: any SwiftProtobuf.Message, as type: Intent.Type
  ) throws -> Intent {
    guard let intent = decoded as? Intent else {
      throw IntentMeshError.invalidPayload(
        "the intent handed to Handle is \(Swift.type(of: decoded).protoMessageName), not \(Intent.protoMessageName)")
    }
    return intent
  }

  private static func chosenParameters<H: IntentHandler>(
    _ all: [IntentParameter<H>], requested: [String], intentClass: String
  ) throws -> [IntentParameter<H>] {
    guard !requested.isEmpty else { return all }
    return try requested.map { name in
      guard let parameter = all.first(where: { $0.keyPath == name }) else {
        let known = all.map(\.keyPath).joined(separator: ", ")
        throw IntentMeshError.invalidArgument(
          "\(intentClass) has no parameter \"\(name)\"; its parameters are: \(known)")
      }
      return parameter
    }
  }

  /// The parameters in layout order: the view controller's order, or the declared parameters.
  package var viewParameters: [Intentmesh_V1_Parameter] {
    if let order = viewController?.parameterOrder, !order.isEmpty { return order }
    return parameters.map { declared in
      .with {
        $0.parameterClass = intentClass
        $0.keyPath = declared.keyPath
      }
    }
  }

  /// The manifest entry of this intent.
  package func declaration(restrictedWhileLocked: Bool) -> Intentmesh_V1_IntentDeclaration {
    .with {
      $0.intentClass = intentClass
      $0.payloadType = payloadType
      $0.responseType = responseType
      $0.parameters = parameters
      $0.restrictedWhileLocked = restrictedWhileLocked
      $0.requiresUserConfirmation = requiresUserConfirmation
      $0.supportsLiveUpdates = supportsLiveUpdates
      $0.confirmationPrompt = confirmationPrompt
      $0.viewParameters = viewParameters
    }
  }
}
