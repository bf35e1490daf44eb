package import IntentMeshProtos
package import SwiftProtobuf
internal import IntentMeshCore

/// Why a value is unsupported or needs confirmation: a case of a domain's reason enum
/// (SiriKit's `INSendMessageRecipientUnsupportedReason.noAccount`) and a sentence for the user.
package struct ResolutionReason: Sendable, Equatable {
  package var type: String
  package var name: String
  package var code: Int32
  package var message: String

  /// A reason from a generated reason enum, e.g. `.init(.noAccount, "Celestra has no UnicornChat account.")`.
  package init<E: SwiftProtobuf.Enum>(_ value: E, _ message: String) {
    self.type = Self.enumTypeName(E.self)
    self.name = EnumCaseName.of(value)
    self.code = Int32(value.rawValue)
    self.message = message
  }

  /// A reason with no typed enum behind it (SiriKit's plain `unsupported()`).
  package init(message: String) {
    self.type = ""
    self.name = ""
    self.code = 0
    self.message = message
  }

  package var proto: Intentmesh_V1_Reason {
    .with {
      $0.type = type
      $0.name = name
      $0.code = code
      $0.message = message
    }
  }

  /// The enum's Swift type name, e.g. "Intentmesh_Messaging_V1_SendMessageRecipientUnsupportedReason",
  /// turned into its protobuf name "intentmesh.messaging.v1.SendMessageRecipientUnsupportedReason".
  static func enumTypeName<E>(_ type: E.Type) -> String {
    let swiftName = String(describing: type)
    var parts = swiftName.split(separator: "_").map(String.init)
    guard parts.count > 1, let last = parts.popLast() else { return swiftName }
    return (parts.map { $0.lowercased() } + [last]).joined(separator: ".")
  }
}
