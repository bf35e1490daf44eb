package import IntentMeshProtos
internal import SwiftProtobuf

extension Intentmesh_V1_PersonHandle {
  /// An app's handle for a person: an email-style address (it has an "@"), or an opaque name. The
  /// "@" is found by a byte search: Foundation's `contains` on strings goes through `NSString`, and
  /// every person an answer carries is made here.
  package static func appHandle(_ handle: String) -> Self {
    .with {
      $0.value = handle
      $0.type = handle.utf8.contains(UInt8(ascii: "@")) ? .emailAddress : .unspecified
    }
  }
}
