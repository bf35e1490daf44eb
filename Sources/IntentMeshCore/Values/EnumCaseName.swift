internal import IntentMeshProtos
package import SwiftProtobuf

/// SiriKit's names for protobuf enum cases.
///
/// Generated enums strip their prefix (`CODE_FAILURE_REQUIRING_APP_LAUNCH` becomes
/// `.failureRequiringAppLaunch`), so the Swift case name is SiriKit's own name for the case.
package enum EnumCaseName {
  /// The case name of `value`, e.g. "failureRequiringAppLaunch"; "unrecognized(N)" for unknown numbers.
  package static func of<E: SwiftProtobuf.Enum>(_ value: E) -> String {
    let described = String(describing: value)
    if described.hasPrefix("UNRECOGNIZED") {
      return "unrecognized(\(value.rawValue))"
    }
    return described
  }

  /// The case of `E` whose name is `name`, if any.
  package static func value<E: SwiftProtobuf.Enum & CaseIterable>(named name: String, in type: E.Type) -> E? {
    E.allCases.first { of($0) == name }
  }
}
