package import SwiftProtobuf

/// The messages, enums and RPC methods of some .proto files, by full name: what a program knows of
/// messages it was not built with, from the descriptors server reflection serves (the CLI's payloads,
/// the gateway's Connect JSON).
package struct ProtoSchema: Sendable {
  package struct Field: Sendable {
    package let name: String
    package let jsonName: String
    package let number: Int
    package let type: Google_Protobuf_FieldDescriptorProto.TypeEnum
    package let isRepeated: Bool
    /// The full name of the message or enum, for those types.
    package let typeName: String
  }

  package struct Message: Sendable {
    let fullName: String
    package let fields: [Field]
    /// A map's entry type (key = field 1, value = field 2).
    package let isMapEntry: Bool

    /// The field a JSON member names: its JSON name or its proto name.
    package func field(named name: String) -> Field? { fields.first { $0.jsonName == name || $0.name == name } }
    package func field(number: Int) -> Field? { fields.first { $0.number == number } }
  }

  /// One RPC method: what it takes and answers, and which sides stream.
  package struct Method: Sendable, Equatable {
    package let service: String
    package let name: String
    package let inputType: String
    package let outputType: String
    package let clientStreaming: Bool
    package let serverStreaming: Bool
    /// Marked `option idempotency_level = NO_SIDE_EFFECTS`: a web client may call it with GET.
    package var noSideEffects = false
  }

  package private(set) var messages: [String: Message] = [:]
  /// Each enum's cases: name → number, and number → name.
  package private(set) var enums: [String: (byName: [String: Int32], byNumber: [Int32: String])] = [:]
  /// Methods by their gRPC path, `/package.Service/Method`.
  package private(set) var methods: [String: Method] = [:]

  package init(files: [Google_Protobuf_FileDescriptorProto] = []) {
    add(files)
  }

  package mutating func add(_ files: [Google_Protobuf_FileDescriptorProto]) {
    for file in files {
      let prefix = file.package.isEmpty ? "" : file.package + "."
      for message in file.messageType { add(message, prefix: prefix) }
      for enumeration in file.enumType { add(enumeration, prefix: prefix) }
      for service in file.service {
        for method in service.method {
          methods["/\(prefix)\(service.name)/\(method.name)"] = Method(
            service: prefix + service.name, name: method.name, inputType: Self.fullName(method.inputType),
            outputType: Self.fullName(method.outputType), clientStreaming: method.clientStreaming,
            serverStreaming: method.serverStreaming,
            noSideEffects: method.options.idempotencyLevel == .noSideEffects)
        }
      }
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
          typeName: Self.fullName(field.typeName))
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
  package func message(_ name: String) throws(ProtoJSONError) -> Message {
    guard let message = messages[name] else { throw ProtoJSONError("no descriptor of \(name)") }
    return message
  }

  /// ".intentmesh.v1.Intent" → "intentmesh.v1.Intent".
  private static func fullName(_ reference: String) -> String {
    reference.hasPrefix(".") ? String(reference.dropFirst()) : reference
  }

  /// protoc's JSON name: "goal_value" → "goalValue".
  package static func lowerCamel(_ name: String) -> String {
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
