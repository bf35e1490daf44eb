package import IntentMeshProtos
package import SwiftProtobuf
internal import IntentMeshCore

/// A generated response message of an intent (`SendMessageIntentResponse`): it has the intent's own
/// code enum, named as SiriKit names the codes.
package protocol IntentResponseMessage: SwiftProtobuf.Message, Sendable {
  associatedtype Code: SwiftProtobuf.Enum & CaseIterable & Sendable
  var code: Code { get set }
}

extension IntentResponseMessage {
  /// A response with only a code, e.g. `.init(code: .ready)`.
  package init(code: Code) {
    self.init()
    self.code = code
  }

  /// SiriKit's name of the code, e.g. "failureRequiringAppLaunch".
  package var codeName: String { EnumCaseName.of(code) }

  /// The interaction status SiriKit derives from the code.
  var handlingStatus: Intentmesh_V1_IntentHandlingStatus {
    IntentHandlingStatusRule.status(forCodeNamed: codeName)
  }

  /// The response with the `ready` code every intent has.
  package static var ready: Self {
    var response = Self()
    if let ready = EnumCaseName.value(named: "ready", in: Code.self) { response.code = ready }
    return response
  }
}

/// How a response code maps to `INIntentHandlingStatus`.
enum IntentHandlingStatusRule {
  /// ready → ready, inProgress → inProgress, success → success; codes that send the user to the app
  /// (failureRequiringAppLaunch…, continueInApp, handleInApp) → deferredToApplication; other failures → failure.
  static func status(forCodeNamed name: String) -> Intentmesh_V1_IntentHandlingStatus {
    switch name {
    case "ready": return .ready
    case "inProgress": return .inProgress
    case "success": return .success
    case "continueInApp", "handleInApp": return .deferredToApplication
    case _ where name.hasPrefix("failureRequiringAppLaunch"): return .deferredToApplication
    case _ where name.hasPrefix("failure"): return .failure
    default: return .unspecified
    }
  }
}
