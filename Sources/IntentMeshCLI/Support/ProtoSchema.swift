import Foundation
import SwiftProtobuf

/// The message and enum types of some .proto files, by full name: what `intentmesh` knows of a
/// payload it was not built with, from the descriptors server reflection serves.
struct ProtoSchema: Sendable {
  struct Field: Sendable {
    let name: String
    let jsonName: String
    let number: Int
    let type: Google_Protobuf_FieldDescriptorProto.TypeEnum
    let isRepeated: Bool
    /// The full name of the message or enum, for those types.
    let typeName: String
  }

  struct Message: Sendable {
    let fullName: String
    let fields: [Field]
    /// A map's entry type (key = field 1, value = field 2).
    let isMapEntry: Bool

    /// The field a JSON member names: its JSON name or its proto name.
    func field(named name: String) -> Field? { fields.first { $0.jsonName == name || $0.name == name } }
    func field(number: Int) -> Field? { fields.first { $0.number == number } }
  }

  private(set) var messages: [String: Message] = [:]
  /// Each enum's cases: name → number, and number → name.
  private(set) var enums: [String: (byName: [String: Int32], byNumber: [Int32: String])] = [:]

  init(files: [Google_Protobuf_FileDescriptorProto] = []) {
    add(files)
  }

  mutating func add(_ files: [Google_Protobuf_FileDescriptorProto]) {
    for file in files {
      let prefix = file.package.isEmpty ? "" : file.package + "."
      for message in file.messageType { add(message, prefix: prefix) }
      for enumeration in file.enumType { add(enumeration, prefix: prefix) }
    }
  }

  private mutating func add(_ message: Google_Protobuf_DescriptorProto, prefix: String) {
    let name = prefix + message.name
    messages[name] = Message(
      fullName: name,
      fields: message.field.map { field in
        Field(
          name: field.name, jsonName: field.hasJsonName ? field.jsonName : Self.lowerCamel(field.name),
          number: Int(field.number), type: field.type, isRepeated: field.label == .repeated,
          typeName: field.typeName.hasPrefix(".") ? String(field.typeName.dropFirst()) : field.typeName)
      },
      isMapEntry: message.options.mapEntry)
    for nested in message.nestedType { add(nested, prefix: name + ".") }
    for enumeration in message.enumType { add(enumeration, prefix: name + ".") }
  }

  private mutating func add(_ enumeration: Google_Protobuf_EnumDescriptorProto, prefix: String) {
    var byName: [String: Int32] = [:]
    var byNumber: [Int32: String] = [:]
    for value in enumeration.value {
      byName[value.name] = value.number
      if byNumber[value.number] == nil { byNumber[value.number] = value.name }
    }
    enums[prefix + enumeration.name] = (byName, byNumber)
  }

  /// The message `name`; a clear error when the descriptors do not have it.
  func message(_ name: String) throws -> Message {
    guard let message = messages[name] else { throw CLIError("no descriptor of \(name): does the service know it?") }
    return message
  }

  /// protoc's JSON name: "goal_value" → "goalValue".
  static func lowerCamel(_ name: String) -> String {
    var result = ""
    var upper = false
    for character in name {
      if character == "_" {
        upper = true
      } else {
        result.append(upper ? Character(character.uppercased()) : character)
        upper = false
      }
    }
    return result
  }
}
