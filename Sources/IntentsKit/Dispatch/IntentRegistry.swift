internal import IntentMeshProtos
internal import IntentMeshCore

/// The handler registrations of a domain, by intent class (SiriKit's `INExtension.handler(for:)`).
package struct IntentRegistry: Sendable {
  let registrations: [IntentRegistration]
  private let byClass: [String: IntentRegistration]

  package init(_ registrations: [IntentRegistration]) {
    self.registrations = registrations
    self.byClass = Dictionary(registrations.map { ($0.intentClass, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The registration for `intentClass`, or NOT_FOUND.
  package func registration(for intentClass: String) throws -> IntentRegistration {
    guard let registration = byClass[intentClass] else {
      throw IntentMeshError.unknownIntentClass(intentClass)
    }
    return registration
  }

  /// The registration whose intent or response class is `parameterClass` ("INSendMessageIntentResponse").
  package func registration(forParameterClass parameterClass: String) -> IntentRegistration? {
    byClass[parameterClass]
      ?? (parameterClass.hasSuffix("Response") ? byClass[String(parameterClass.dropLast(8))] : nil)
  }
}
