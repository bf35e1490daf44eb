import IntentMeshProtos
@testable import ProtoJSON
import ServiceKit
import Testing

/// JSON Schemas of messages from their descriptors, as MCP tools' `inputSchema`: each kind of field
/// as proto3 JSON writes it, nested messages once under `$defs`.
@Suite("JSONSchemaOfMessage: a message's proto3 JSON as JSON Schema")
struct JSONSchemaOfMessageTests {
  static let schema = ProtoSchema(files: try! ReflectionIndex.embeddedFiles())

  static func property(_ json: JSONValue, _ name: String) -> JSONValue? { json["properties"]?[name] }

  @Test("scalars, enums by name, bytes, repeated and nested messages; descriptions by JSON name")
  func person() throws {
    let json = try JSONSchemaOfMessage.of(
      "intentmesh.v1.Person", in: Self.schema, descriptions: ["displayName": "Who it is"])
    #expect(json["type"] == .string("object"))
    #expect(json["additionalProperties"] == .bool(false))
    #expect(
      Self.property(json, "displayName")
        == .object([("type", .string("string")), ("description", .string("Who it is"))]))
    #expect(Self.property(json, "isMe") == .object([("type", .string("boolean"))]))
    #expect(Self.property(json, "aliases")?["type"] == .string("array"))
    #expect(Self.property(json, "aliases")?["items"]?["$ref"] == .string("#/$defs/intentmesh.v1.PersonHandle"))
    let handle = try #require(json["$defs"]?["intentmesh.v1.PersonHandle"])
    guard case .array(let cases)? = handle["properties"]?["type"]?["enum"] else {
      Issue.record("no enum in \(handle.text)")
      return
    }
    #expect(cases.contains(.string("TYPE_EMAIL_ADDRESS")))
    let image = try #require(json["$defs"]?["intentmesh.v1.Image"])
    #expect(image["properties"]?["data"]?["contentEncoding"] == .string("base64"))
  }

  @Test("64-bit integers as numbers or strings, maps as objects, Timestamp as date-time, Any with its @type")
  func wellKnownShapes() throws {
    let money = try JSONSchemaOfMessage.of("intentmesh.v1.CurrencyAmount", in: Self.schema)
    #expect(Self.property(money, "units")?["type"] == .array([.string("integer"), .string("string")]))
    let activity = try JSONSchemaOfMessage.of("intentmesh.v1.UserActivity", in: Self.schema)
    #expect(
      Self.property(activity, "userInfo")
        == .object([("type", .string("object")), ("additionalProperties", .object([("type", .string("string"))]))]))
    let interaction = try #require(activity["$defs"]?["intentmesh.v1.Interaction"])
    #expect(interaction["properties"]?["date"]?["format"] == .string("date-time"))
    let intent = try #require(activity["$defs"]?["intentmesh.v1.Intent"])
    #expect(intent["properties"]?["payload"]?["required"] == .array([.string("@type")]))
  }

  @Test("a message the descriptors do not have is an error, not an empty schema")
  func unknown() {
    #expect(throws: ProtoJSONError.self) { try JSONSchemaOfMessage.of("intentmesh.v1.Nothing", in: Self.schema) }
  }
}
