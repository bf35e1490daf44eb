internal import IntentMeshProtos
internal import SwiftProtobuf
internal import Foundation

/// How names spoken by a user are compared with names an app knows: case-, accent- and
/// space-insensitively ("CornPay" matches "corn pay").
package enum NameMatching {
  /// The comparable form of `name`.
  package static func normalized(_ name: String) -> String {
    name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
      .filter { !$0.isWhitespace && $0 != "-" && $0 != "." }
  }

  /// Whether `spoken` names `known`.
  package static func matches(_ spoken: String, _ known: String) -> Bool {
    !spoken.isEmpty && normalized(spoken) == normalized(known)
  }
}
