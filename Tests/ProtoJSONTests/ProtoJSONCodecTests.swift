import Foundation
import IntentMeshProtos
@testable import ProtoJSON
import ServiceKit
import SwiftProtobuf
import Testing

/// The descriptor-driven proto3 JSON codec against swift-protobuf's generated code as the oracle:
/// what one writes, the other reads back to the same message, both ways.
@Suite("ProtoJSONCodec: proto3 JSON by descriptors, checked against swift-protobuf")
struct ProtoJSONCodecTests {
  static let codec = ProtoJSONCodec(schema: ProtoSchema(files: try! ReflectionIndex.embeddedFiles()))

  init() {
    Google_Protobuf_Any.register(messageType: Intentmesh_V1_Person.self)
    Google_Protobuf_Any.register(messageType: Intentmesh_V1_CurrencyAmount.self)
    Google_Protobuf_Any.register(messageType: Google_Protobuf_StringValue.self)
  }

  static let person = Intentmesh_V1_Person.with {
    $0.displayName = "Celestra \"the\" Unicorn\n✨"
    $0.personHandle = .with {
      $0.value = "celestra@unicorn.chat"
      $0.type = .emailAddress
    }
    $0.aliases = [
      .with {
        $0.value = "+41 79 000 00 00"; $0.type = .phoneNumber
      }, .with { $0.value = "cel" },
    ]
    $0.image = .with { $0.data = Data([0, 1, 2, 250, 251, 255]) }
    $0.isMe = true
  }

  static func activity() throws -> Intentmesh_V1_UserActivity {
    try .with {
      $0.activityType = "INSendMessageIntent"
      $0.userInfo = ["b": "2", "a": "1", "empty": ""]
      $0.interaction = try .with {
        $0.identifier = "EC6E53A3"
        $0.date = Google_Protobuf_Timestamp(seconds: 1_779_440_400, nanos: 250_000_000)
        $0.intent = try .with {
          $0.intentClass = "INSendMessageIntent"
          $0.payload = try Google_Protobuf_Any(message: person)
        }
        $0.direction = .incoming
      }
    }
  }

  static let money = Intentmesh_V1_CurrencyAmount.with {
    $0.currencyCode = "CHF"
    $0.units = -9_007_199_254_740_993  // beyond a Double's integers
    $0.nanos = -500_000_000
  }

  static let location = Intentmesh_V1_Location.with {
    $0.latitude = 47.376_886
    $0.longitude = -8.541_694e-3
    $0.altitude = 0.1
    $0.timestamp = Google_Protobuf_Timestamp(seconds: -1, nanos: 999_999_999)
  }

  /// A message's bytes in deterministic order: two messages are the same when these are (an Any
  /// built from a message and one read from bytes differ to `==` though they hold the same).
  static func canonical(_ message: some SwiftProtobuf.Message) throws -> [UInt8] {
    var options = BinaryEncodingOptions()
    options.useDeterministicOrdering = true
    return try message.serializedBytes(options: options)
  }

  func roundTrips<M: SwiftProtobuf.Message & Equatable>(_ message: M, as name: String) throws {
    // Ours writes JSON from the binary; swift-protobuf reads it back.
    let written = try Self.codec.decode(message.serializedBytes() as [UInt8], as: name)
    let oracle = try message.jsonString()
    #expect(try Self.canonical(M(jsonString: written.text)) == Self.canonical(message), "\(written.text) vs \(oracle)")
    // swift-protobuf writes JSON; ours makes the binary of it.
    let json = oracle
    let binary = try Self.codec.encode(try JSONReader.read(json), as: name)
    #expect(try Self.canonical(M(serializedBytes: binary)) == Self.canonical(message), "\(json)")
  }

  @Test("messages, repeated fields, enums, bytes, a map, Timestamp and an Any of a domain type")
  func nestedMessages() throws {
    try roundTrips(Self.person, as: "intentmesh.v1.Person")
    try roundTrips(try Self.activity(), as: "intentmesh.v1.UserActivity")
  }

  @Test("64-bit integers beyond a Double's, negative nanos, doubles, times before 1970")
  func numbers() throws {
    try roundTrips(Self.money, as: "intentmesh.v1.CurrencyAmount")
    try roundTrips(Self.location, as: "intentmesh.v1.Location")
    let written = try Self.codec.decode(Self.money.serializedBytes() as [UInt8], as: "intentmesh.v1.CurrencyAmount")
    #expect(written["units"] == .string("-9007199254740993"))
    #expect(written["nanos"] == .number("-500000000"))
  }

  @Test("an empty Any is {} both ways, alone and as a field (found by scripts/fuzz, proto-json)")
  func emptyAny() throws {
    try roundTrips(Google_Protobuf_Any(), as: "google.protobuf.Any")
    #expect(try Self.codec.decode([UInt8](), as: "google.protobuf.Any") == .object([]))
    #expect(try Self.codec.encode(.object([]), as: "google.protobuf.Any") == [])
    let intent = Intentmesh_V1_Intent.with {
      $0.intentClass = "INSendMessageIntent"
      $0.payload = Google_Protobuf_Any()
    }
    try roundTrips(intent, as: "intentmesh.v1.Intent")
  }

  @Test("wrappers and an Any of a wrapper are plain JSON values")
  func wrappers() throws {
    let any = try Google_Protobuf_Any(message: Google_Protobuf_StringValue("Rainbow Run"))
    try roundTrips(any, as: "google.protobuf.Any")
    let written = try Self.codec.decode(any.serializedBytes() as [UInt8], as: "google.protobuf.Any")
    #expect(written["value"] == .string("Rainbow Run"))
  }

  @Test("what proto3 JSON also accepts: proto field names, numbers as strings, enum numbers, URL-safe base64")
  func lenientInput() throws {
    let json = #"{"display_name":"Ava","person_handle":{"type":2},"image":{"data":"AAEC-vv_"},"is_me":true}"#
    let binary = try Self.codec.encode(try JSONReader.read(json), as: "intentmesh.v1.Person")
    let person = try Intentmesh_V1_Person(serializedBytes: binary)
    #expect(person.displayName == "Ava")
    #expect(person.personHandle.type.rawValue == 2)
    #expect(person.image.data == Data([0, 1, 2, 250, 251, 255]))
    let money = try Self.codec.encode(
      try JSONReader.read(#"{"units":"12","nanos":5e8}"#), as: "intentmesh.v1.CurrencyAmount")
    #expect(try Intentmesh_V1_CurrencyAmount(serializedBytes: money).units == 12)
    #expect(try Intentmesh_V1_CurrencyAmount(serializedBytes: money).nanos == 500_000_000)
  }

  @Test(
    "refused, each with a reason: unknown fields, wrong types, out-of-range integers, unknown enum names, bad times",
    arguments: [
      (#"{"nope":1}"#, "intentmesh.v1.Person", "has no field nope"),
      (#"{"displayName":3}"#, "intentmesh.v1.Person", "a string is needed"),
      (#"{"isMe":"yes"}"#, "intentmesh.v1.Person", "true or false"),
      (#"{"nanos":3000000000}"#, "intentmesh.v1.CurrencyAmount", "not an integer"),
      (#"{"units":1.5}"#, "intentmesh.v1.CurrencyAmount", "not an integer"),
      (#"{"personHandle":{"type":"FAX"}}"#, "intentmesh.v1.Person", "not a case"),
      (#"{"timestamp":"2026-02-30T00:00:00Z"}"#, "intentmesh.v1.Location", "RFC 3339"),
      (#"{"image":{"data":"***"}}"#, "intentmesh.v1.Person", "base64"),
      (#"[]"#, "intentmesh.v1.Person", "an object"),
      (#"{"displayName":"a","display_name":"b"}"#, "intentmesh.v1.Person", "given twice"),
      (#"{"@type":"type.googleapis.com/x.Unknown"}"#, "google.protobuf.Any", "no descriptor of x.Unknown"),
    ])
  func refusals(json: String, type: String, reason: String) throws {
    #expect {
      _ = try Self.codec.encode(try JSONReader.read(json), as: type)
    } throws: { error in
      "\(error)".contains(reason)
    }
  }

  @Test("truncated or malformed binary is an error, not a crash")
  func malformedBinary() throws {
    let bytes: [UInt8] = try Self.person.serializedBytes()
    for cut in 1..<bytes.count {
      _ = try? Self.codec.decode(bytes.prefix(cut), as: "intentmesh.v1.Person")
    }
    #expect(throws: ProtoJSONError.self) {
      try Self.codec.decode([0x1A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], as: "intentmesh.v1.Person")
    }
    #expect(throws: ProtoJSONError.self) { try Self.codec.decode([0x00], as: "intentmesh.v1.Person") }
  }

  @Test("methods by path: input and output types, which side streams")
  func methods() {
    let method = Self.codec.schema.methods["/intentmesh.v1.IntentsExtension/StartSendingUpdates"]
    #expect(method?.inputType == "intentmesh.v1.StartSendingUpdatesRequest")
    #expect(method?.serverStreaming == true)
    #expect(method?.clientStreaming == false)
    #expect(
      Self.codec.schema.methods["/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"]?.clientStreaming == true)
  }

  @Test("Anys nested deeper than 100 are refused, not a stack overflow; 50 are read")
  func nesting() throws {
    // Built by hand: swift-protobuf sizes a nested Any once per level above it, exponentially.
    func lengthDelimited(_ field: UInt8, _ body: [UInt8]) -> [UInt8] {
      var length: [UInt8] = []
      var rest = body.count
      while rest >= 0x80 {
        length.append(UInt8(rest & 0x7F) | 0x80)
        rest >>= 7
      }
      return [field << 3 | 2] + length + [UInt8(rest)] + body
    }
    func nested(_ depth: Int) throws -> [UInt8] {
      var any =
        lengthDelimited(1, Array("type.googleapis.com/google.protobuf.StringValue".utf8))
        + lengthDelimited(2, lengthDelimited(1, Array("core".utf8)))
      for _ in 0..<depth {
        any = lengthDelimited(1, Array("type.googleapis.com/google.protobuf.Any".utf8)) + lengthDelimited(2, any)
      }
      return any
    }
    #expect(throws: ProtoJSONError.self) { try Self.codec.decode(try nested(300), as: "google.protobuf.Any") }
    #expect((try? Self.codec.decode(try nested(50), as: "google.protobuf.Any")) != nil)
  }

  @Test("a map entry without a value is the value type's default; floats keep their own digits; -0 stays -0")
  func defaults() throws {
    // UserActivity.user_info is map<string, string>: an entry with a key and no value.
    let entry: [UInt8] = [0x0A, 0x01, 0x6B]  // key "k"
    let activity: [UInt8] = [0x12, UInt8(entry.count)] + entry
    #expect(
      try Self.codec.decode(activity, as: "intentmesh.v1.UserActivity")["userInfo"] == .object([("k", .string(""))]))
    #expect(JSONValue.float(0.1).text == "0.1")
    #expect(JSONValue.double(-0.0).text == "-0")
    #expect(JSONValue.double(2.5).text == "2.5")
  }

  @Test("enum cases by their last words only when asked for (the CLI), never for the API")
  func spokenEnumNames() throws {
    let json = try JSONReader.read(#"{"personHandle":{"type":"email address"}}"#)
    #expect(throws: ProtoJSONError.self) { try Self.codec.encode(json, as: "intentmesh.v1.Person") }
    let lenient = ProtoJSONCodec(schema: Self.codec.schema, acceptsSpokenEnumNames: true)
    let person = try Intentmesh_V1_Person(serializedBytes: try lenient.encode(json, as: "intentmesh.v1.Person"))
    #expect(person.personHandle.type == .emailAddress)
  }
}
