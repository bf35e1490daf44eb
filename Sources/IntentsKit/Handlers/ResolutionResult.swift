internal import SwiftProtobuf
package import IntentMeshProtos

/// What a resolve method says about a parameter value (SiriKit's `INIntentResolutionResult` kinds).
package enum ResolutionResult<Value: ParameterValue>: Sendable {
  /// The value is settled; it may differ from what the client sent.
  case success(Value)
  /// The user must pick one of these.
  case disambiguation([Value], prompt: String = "")
  /// The user must say yes or no to this guessed value.
  case confirmationRequired(Value, reason: ResolutionReason? = nil, prompt: String = "")
  /// The parameter needs a value. Speaks for the whole parameter.
  case needsValue(prompt: String = "")
  /// The parameter needs no value. Speaks for the whole parameter.
  case notRequired
  /// The value cannot be used.
  case unsupported(ResolutionReason)

  /// True for needs_value and not_required, which speak for a whole array parameter.
  var isParameterLevel: Bool {
    switch self {
    case .needsValue, .notRequired: true
    default: false
    }
  }

  /// True for success and not_required: the parameter needs nothing more from the user.
  package var isSettled: Bool {
    switch self {
    case .success, .notRequired: true
    default: false
    }
  }

  /// The value written back into the resolved intent: a success's value, or the guess of a
  /// confirmation_required (so the client can send it back once the user says yes).
  var settledOrGuessedValue: Value? {
    switch self {
    case .success(let value), .confirmationRequired(let value, _, _): value
    default: nil
    }
  }

  /// The wire form.
  package func proto() throws -> Intentmesh_V1_ResolutionResult {
    var result = Intentmesh_V1_ResolutionResult()
    switch self {
    case .success(let value):
      result.success = .with { $0.value = Self.resolved(value) }
    case .disambiguation(let options, let prompt):
      result.disambiguation = .with {
        $0.options = options.map(Self.resolved)
        $0.prompt = prompt
      }
    case .confirmationRequired(let value, let reason, let prompt):
      result.confirmationRequired = .with {
        $0.value = Self.resolved(value)
        if let reason { $0.reason = reason.proto }
        $0.prompt = prompt
      }
    case .needsValue(let prompt):
      result.needsValue = .with { $0.prompt = prompt }
    case .notRequired:
      result.notRequired = .init()
    case .unsupported(let reason):
      result.unsupported = .with { $0.reason = reason.proto }
    }
    return result
  }

  private static func resolved(_ value: Value) -> Intentmesh_V1_ResolvedValue {
    .with {
      // Packing a scalar wrapper or a generated message cannot fail; keep the text if it ever did.
      if let packed = try? value.packed() { $0.value = packed }
      $0.displayText = value.displayText
    }
  }
}
