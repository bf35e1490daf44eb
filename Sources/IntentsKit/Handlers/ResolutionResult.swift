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

  /// What dispatch needs of a result, from one look at it: its wire form, whether it settles the
  /// parameter (success, not_required), whether it speaks for a whole array parameter (needs_value,
  /// not_required), and the value written back into the resolved intent — a success's value, or
  /// the guess of a confirmation_required, which the client sends back once the user says yes.
  /// Dispatch runs unspecialized, where each look at a result copies it (every string of a person
  /// or a placemark retained and released); `outcome()` takes the result apart once instead.
  struct Outcome {
    let proto: Intentmesh_V1_ResolutionResult
    let isSettled: Bool
    let isParameterLevel: Bool
    let value: Value?
  }

  /// The result taken apart (`Outcome`).
  consuming func outcome() throws -> Outcome {
    var result = Intentmesh_V1_ResolutionResult()
    switch consume self {
    case .success(let value):
      result.success = .with { $0.value = Self.resolved(value) }
      return Outcome(proto: result, isSettled: true, isParameterLevel: false, value: value)
    case .disambiguation(let options, let prompt):
      result.disambiguation = .with {
        $0.options = options.map(Self.resolved)
        $0.prompt = prompt
      }
      return Outcome(proto: result, isSettled: false, isParameterLevel: false, value: nil)
    case .confirmationRequired(let value, let reason, let prompt):
      result.confirmationRequired = .with {
        $0.value = Self.resolved(value)
        if let reason { $0.reason = reason.proto }
        $0.prompt = prompt
      }
      return Outcome(proto: result, isSettled: false, isParameterLevel: false, value: value)
    case .needsValue(let prompt):
      result.needsValue = .with { $0.prompt = prompt }
      return Outcome(proto: result, isSettled: false, isParameterLevel: true, value: nil)
    case .notRequired:
      result.notRequired = .init()
      return Outcome(proto: result, isSettled: true, isParameterLevel: true, value: nil)
    case .unsupported(let reason):
      result.unsupported = .with { $0.reason = reason.proto }
      return Outcome(proto: result, isSettled: false, isParameterLevel: false, value: nil)
    }
  }

  /// The wire form.
  package func proto() throws -> Intentmesh_V1_ResolutionResult { try outcome().proto }

  private static func resolved(_ value: Value) -> Intentmesh_V1_ResolvedValue {
    .with {
      // Packing a scalar wrapper or a generated message cannot fail; keep the text if it ever did.
      if let packed = try? value.packed() { $0.value = packed }
      $0.displayText = value.displayText
    }
  }
}
