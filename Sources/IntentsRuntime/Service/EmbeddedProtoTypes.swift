internal import ServiceKit
internal import SwiftProtobuf
package import Understanding

/// The contract's types as the interaction model check asks after them: a message's field types
/// and whether an enum exists, from the descriptor set every service embeds for reflection.
package enum EmbeddedProtoTypes {
  /// The check's view of the embedded descriptors.
  package static func checkTypes() throws -> InteractionModelCheck.Types {
    var fields: [String: [String: String]] = [:]
    var enums = Set<String>()
    func add(_ message: Google_Protobuf_DescriptorProto, prefix: String) {
      let name = prefix + message.name
      var types: [String: String] = [:]
      for field in message.field {
        let type = field.typeName.isEmpty ? scalarName(field.type) : String(field.typeName.drop { $0 == "." })
        types[field.name] = type
        types[field.hasJsonName ? field.jsonName : field.name] = type
      }
      fields[name] = types
      for nested in message.nestedType { add(nested, prefix: name + ".") }
      for nested in message.enumType { enums.insert(name + "." + nested.name) }
    }
    for file in try ReflectionIndex.embeddedFiles() {
      let prefix = file.package.isEmpty ? "" : file.package + "."
      for message in file.messageType { add(message, prefix: prefix) }
      for enumeration in file.enumType { enums.insert(prefix + enumeration.name) }
    }
    let known = fields
    let knownEnums = enums
    return InteractionModelCheck.Types(
      fieldType: { message, field in known[message]?[field] }, enumExists: { knownEnums.contains($0) })
  }

  static func scalarName(_ type: Google_Protobuf_FieldDescriptorProto.TypeEnum) -> String {
    switch type {
    case .string: "string"
    case .int32, .sint32, .sfixed32: "int32"
    case .int64, .sint64, .sfixed64: "int64"
    case .uint32, .fixed32: "uint32"
    case .uint64, .fixed64: "uint64"
    case .double: "double"
    case .float: "float"
    case .bool: "bool"
    case .bytes: "bytes"
    default: "\(type)"
    }
  }
}
