package import IntentMeshProtos
internal import SwiftProtobuf
internal import IntentMeshCore

/// One parameter of an intent as a handler declares it: its key path, how it is resolved, and how a
/// settled value is written back into the intent. A class, immutable: dispatch (generic over the
/// handler, unspecialized) copies each parameter it walks on every call — one retain of a class
/// against one of each string and closure of a struct.
package final class IntentParameter<Handler: IntentHandler>: Sendable {
  /// The key path in the intent, e.g. "recipients".
  package let keyPath: String
  package let isArray: Bool
  let valueTypeName: String
  /// What the host asks when the parameter needs a value.
  package let prompt: String
  /// A short label for a default view.
  package let label: String
  /// The value's display text in the intent ("Rainbow Savings", "85.00 USD"); empty when absent.
  let display: @Sendable (Handler.Intent) -> String
  /// A resolved parameter: its results, whether they settle it, and how its value is written back.
  typealias Resolution = (
    results: [Intentmesh_V1_ResolutionResult], settled: Bool, apply: @Sendable (inout Handler.Intent) -> Void
  )
  let run: @Sendable (Handler, Handler.Intent, IntentContext) async throws -> Resolution
  /// Writes the value's agreed form into the intent (`ParameterValue.agreedForm`) and returns its
  /// bytes: what a confirmation of the intent binds for this parameter.
  let agree: @Sendable (inout Handler.Intent) throws -> [UInt8]

  private init(
    keyPath: String, isArray: Bool, valueTypeName: String, prompt: String, label: String,
    display: @escaping @Sendable (Handler.Intent) -> String,
    agree: @escaping @Sendable (inout Handler.Intent) throws -> [UInt8],
    run: @escaping @Sendable (Handler, Handler.Intent, IntentContext) async throws -> Resolution
  ) {
    self.keyPath = keyPath
    self.isArray = isArray
    self.valueTypeName = valueTypeName
    self.prompt = prompt
    self.label = label
    self.display = display
    self.agree = agree
    self.run = run
  }

  /// A single-valued parameter. Without `resolve`, a given value is success and no value is not_required.
  package static func value<V: ParameterValue>(
    _ keyPath: String,
    _ field: any WritableKeyPath<Handler.Intent, V> & Sendable,
    prompt: String = "",
    label: String = "",
    resolve: (@Sendable (Handler) -> (Handler.Intent, IntentContext) async throws -> ResolutionResult<V>)? = nil
  ) -> Self {
    Self(
      keyPath: keyPath, isArray: false, valueTypeName: V.valueTypeName, prompt: prompt, label: label,
      display: { intent in
        let value = intent[keyPath: field]
        return value.isAbsent ? "" : value.displayText
      },
      agree: { intent in
        let agreed = intent[keyPath: field].agreedForm
        intent[keyPath: field] = agreed
        return try agreed.agreedBytes()
      }
    ) {
      handler, intent, context in
      guard let resolve else {
        // The given value stands: nothing to write back.
        let given = intent[keyPath: field]
        let outcome = try (given.isAbsent ? ResolutionResult<V>.notRequired : .success(given)).outcome()
        return ([outcome.proto], outcome.isSettled, { _ in })
      }
      let outcome = try await resolve(handler)(intent, context).outcome()
      let value = outcome.value
      let apply: @Sendable (inout Handler.Intent) -> Void = { intent in
        if let value { intent[keyPath: field] = value }
      }
      return ([outcome.proto], outcome.isSettled, apply)
    }
  }

  /// An array parameter: one result per element, or one needs_value / not_required for the whole.
  /// Without `resolve`, every given element is success and an empty array is not_required.
  package static func array<V: ParameterValue>(
    _ keyPath: String,
    _ field: any WritableKeyPath<Handler.Intent, [V]> & Sendable,
    prompt: String = "",
    label: String = "",
    resolve: (@Sendable (Handler) -> (Handler.Intent, IntentContext) async throws -> [ResolutionResult<V>])? = nil
  ) -> Self {
    Self(
      keyPath: keyPath, isArray: true, valueTypeName: V.valueTypeName, prompt: prompt, label: label,
      display: { intent in
        intent[keyPath: field].filter { !$0.isAbsent }.map { $0.displayText }.joined(separator: ", ")
      },
      agree: { intent in
        let agreed = intent[keyPath: field].map(\.agreedForm)
        intent[keyPath: field] = agreed
        // Each element length-prefixed: no two lists share bytes.
        var bytes: [UInt8] = []
        for element in agreed {
          let encoded = try element.agreedBytes()
          bytes += withUnsafeBytes(of: UInt32(encoded.count).bigEndian) { Array($0) }
          bytes += encoded
        }
        return bytes
      }
    ) {
      handler, intent, context in
      let given = intent[keyPath: field]
      guard let resolve else {
        // Every given element stands: nothing to write back.
        let results: [ResolutionResult<V>] = given.isEmpty ? [.notRequired] : given.map { .success($0) }
        return (try outcomes(of: results).map { $0.proto }, true, { _ in })
      }
      let outcomes = try outcomes(of: try await resolve(handler)(intent, context))
      let elements = given.count
      try validate(outcomes, elements: elements, keyPath: keyPath, intentClass: Handler.intentClass)
      let apply: @Sendable (inout Handler.Intent) -> Void = { intent in
        guard outcomes.count == elements, !outcomes.contains(where: { $0.isParameterLevel }) else { return }
        var values = intent[keyPath: field]
        for index in outcomes.indices {
          if let value = outcomes[index].value { values[index] = value }
        }
        intent[keyPath: field] = values
      }
      // Closures, not key paths: a key path into a generic type is made at run time, on every call.
      return (outcomes.map { $0.proto }, outcomes.allSatisfy { $0.isSettled }, apply)
    }
  }

  /// Each result taken apart (`ResolutionResult.outcome()`), in order: moved out of the array from
  /// its end, where iterating it would copy each one.
  static func outcomes<V>(of results: consuming [ResolutionResult<V>]) throws -> [ResolutionResult<V>.Outcome] {
    var outcomes: [ResolutionResult<V>.Outcome] = []
    outcomes.reserveCapacity(results.count)
    while let result = results.popLast() { outcomes.append(try result.outcome()) }
    outcomes.reverse()
    return outcomes
  }

  /// SiriKit's rule for array results: one per element, or a single parameter-level result.
  static func validate<V>(
    _ results: [ResolutionResult<V>.Outcome], elements: Int, keyPath: String, intentClass: String
  ) throws {
    if results.contains(where: { $0.isParameterLevel }) {
      guard results.count == 1 else {
        throw IntentMeshError.handlerContract(
          "\(intentClass).\(keyPath): needs_value and not_required must be the only result of an array parameter"
        )
      }
      return
    }
    guard results.count == elements else {
      throw IntentMeshError.handlerContract(
        "\(intentClass).\(keyPath): \(results.count) results for \(elements) elements; an array parameter needs one result per element"
      )
    }
  }

  /// The manifest entry.
  package var declaration: Intentmesh_V1_ParameterDeclaration {
    .with {
      $0.keyPath = keyPath
      $0.isArray = isArray
      $0.valueType = valueTypeName
      $0.prompt = prompt
      $0.label = label
    }
  }
}
