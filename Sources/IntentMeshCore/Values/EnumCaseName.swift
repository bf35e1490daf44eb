internal import IntentMeshProtos
package import SwiftProtobuf
internal import Synchronization

/// SiriKit's names for protobuf enum cases.
///
/// Generated enums strip their prefix (`CODE_FAILURE_REQUIRING_APP_LAUNCH` becomes
/// `.failureRequiringAppLaunch`), so the Swift case name is SiriKit's own name for the case.
package enum EnumCaseName {
  /// A case of one enum type, by raw value.
  private struct Case: Hashable {
    let type: ObjectIdentifier
    let rawValue: Int
  }

  /// A case name asked for of one enum type.
  private struct Name: Hashable {
    let type: ObjectIdentifier
    let name: String
  }

  /// The names of the declared cases met so far (reflection, `String(describing:)`, costs
  /// microseconds; a response's code name is asked for on every call). Unrecognized numbers, which
  /// clients choose, are not kept, so this holds at most every declared case once.
  private static let names = Mutex<[Case: String]>([:])
  /// The raw values of the case names looked up so far.
  private static let values = Mutex<[Name: Int]>([:])
  /// More entries than any enum set of this repository declares: past it nothing more is kept.
  private static let capacity = 16_384

  /// The case name of `value`, e.g. "failureRequiringAppLaunch"; "unrecognized(N)" for unknown numbers.
  package static func of<E: SwiftProtobuf.Enum>(_ value: E) -> String {
    let key = Case(type: ObjectIdentifier(E.self), rawValue: value.rawValue)
    if let known = names.withLock({ $0[key] }) { return known }
    let described = String(describing: value)
    if described.hasPrefix("UNRECOGNIZED") {
      return "unrecognized(\(value.rawValue))"
    }
    names.withLock { names in
      if names.count < capacity { names[key] = described }
    }
    return described
  }

  /// The case of `E` whose name is `name`, if any.
  package static func value<E: SwiftProtobuf.Enum & CaseIterable>(named name: String, in type: E.Type) -> E? {
    let key = Name(type: ObjectIdentifier(E.self), name: name)
    if let rawValue = values.withLock({ $0[key] }) { return E(rawValue: rawValue) }
    guard let found = E.allCases.first(where: { of($0) == name }) else { return nil }
    values.withLock { values in
      if values.count < capacity { values[key] = found.rawValue }
    }
    return found
  }
}
