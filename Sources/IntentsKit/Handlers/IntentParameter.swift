package import IntentMeshProtos
internal import SwiftProtobuf
internal import IntentMeshCore

/// One parameter of an intent as a handler declares it: its key path, how it is resolved, and how a
/// settled value is written back into the intent.
package struct IntentParameter<Handler: IntentHandler>: Sendable {
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
  let run:
    @Sendable (Handler, Handler.Intent, IntentContext) async throws -> (
      results: [Intentmesh_V1_ResolutionResult], settled: Bool, apply: @Sendable (inout Handler.Intent) -> Void
    )

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
      }
    ) {
      handler, intent, context in
      guard let resolve else {
        // The given value stands: nothing to write back.
        let given = intent[keyPath: field]
        let result: ResolutionResult<V> = given.isAbsent ? .notRequired : .success(given)
        return ([try result.proto()], result.isSettled, { _ in })
      }
      let result = try await resolve(handler)(intent, context)
      let apply: @Sendable (inout Handler.Intent) -> Void = { intent in
        if let value = result.settledOrGuessedValue { intent[keyPath: field] = value }
      }
      return ([try result.proto()], result.isSettled, apply)
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
      display: { intent in intent[keyPath: field].filter { !$0.isAbsent }.map(\.displayText).joined(separator: ", ") }
    ) {
      handler, intent, context in
      let given = intent[keyPath: field]
      guard let resolve else {
        // Every given element stands: nothing to write back.
        let results: [ResolutionResult<V>] = given.isEmpty ? [.notRequired] : given.map { .success($0) }
        return (try results.map { try $0.proto() }, true, { _ in })
      }
      let results = try await resolve(handler)(intent, context)
      try validate(results, elements: given.count, keyPath: keyPath, intentClass: Handler.intentClass)
      let apply: @Sendable (inout Handler.Intent) -> Void = { intent in
        guard results.count == given.count, !results.contains(where: { $0.isParameterLevel }) else { return }
        var values = intent[keyPath: field]
        for (index, result) in results.enumerated() {
          if let value = result.settledOrGuessedValue { values[index] = value }
        }
        intent[keyPath: field] = values
      }
      return (try results.map { try $0.proto() }, results.allSatisfy({ $0.isSettled }), apply)
    }
  }

  /// SiriKit's rule for array results: one per element, or a single parameter-level result.
  static func validate<V>(_ results: [ResolutionResult<V>], elements: Int, keyPath: String, intentClass: String) throws
  {
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
