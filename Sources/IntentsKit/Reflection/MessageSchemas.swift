internal import Foundation
internal import IntentMeshCore
internal import SwiftProtobuf

/// The fields of every message in the contracts, from the embedded descriptor set: enough to tell
/// whether a parameter key path ("recipients[0].displayName") names something the message has.
package struct MessageSchemas: Sendable {
  struct Field: Sendable {
    let repeated: Bool
    /// The full name of the field's message type; nil for scalars and enums.
    let messageType: String?
  }

  private var fields: [String: [String: Field]] = [:]

  /// The schemas of the contracts this binary was built with.
  package static let embedded: MessageSchemas = {
    guard let data = Data(base64Encoded: ReflectionDescriptorSet.base64, options: .ignoreUnknownCharacters),
      let set = try? Google_Protobuf_FileDescriptorSet(serializedBytes: data)
    else { return MessageSchemas() }
    var schemas = MessageSchemas()
    for file in set.file {
      for message in file.messageType {
        schemas.add(message, prefix: file.package.isEmpty ? "" : file.package + ".")
      }
    }
    return schemas
  }()

  private mutating func add(_ message: Google_Protobuf_DescriptorProto, prefix: String) {
    let name = prefix + message.name
    var byName: [String: Field] = [:]
    for field in message.field {
      let type = field.type == .message ? String(field.typeName.drop { $0 == "." }) : nil
      let entry = Field(repeated: field.label == .repeated, messageType: type)
      byName[field.name] = entry
      byName[field.jsonName] = entry
    }
    fields[name] = byName
    for nested in message.nestedType { add(nested, prefix: name + ".") }
  }

  /// Why `keyPath` names nothing in `messageType`, or nil when it does (or cannot be checked:
  /// an unknown type, or a path that goes into an `Any` or `Struct`).
  package func problem(with segments: [KeyPathReader.Segment], in messageType: String) -> String? {
    var type = messageType
    for (position, segment) in segments.enumerated() {
      guard let known = fields[type] else { return nil }
      guard let field = known[segment.name] else { return "\(type) has no field \(segment.name)" }
      if segment.index != nil && !field.repeated { return "\(segment.name) is not a list, so it takes no [index]" }
      guard position < segments.count - 1 else { return nil }
      guard let next = field.messageType else { return "\(segment.name) has no fields to go into" }
      if next.hasPrefix("google.protobuf.") { return nil }
      type = next
    }
    return nil
  }
}
