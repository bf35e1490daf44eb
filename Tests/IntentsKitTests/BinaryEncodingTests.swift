import Foundation
import IntentMeshProtos
import SwiftProtobuf
import Testing

@testable import IntentMeshCore
@testable import IntentsKit

/// `encodedBytes()` against SwiftProtobuf's `serializedBytes()`: the same bytes for every field
/// kind, for the answers the domains give, and for a large proto2 message.
@Suite("Binary encoding with nested messages sized once")
struct BinaryEncodingTests {
  /// The plan's own bytes (not a fallback) and `encodedBytes()` are `serializedBytes()`.
  func expectSameBytes(
    _ message: some SwiftProtobuf.Message, planned: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let reference: [UInt8] = try message.serializedBytes()
    if planned {
      let plan = try BinaryEncodingPlan(sizing: message)
      var buffer = [UInt8](repeating: 0, count: plan.size)
      try buffer.withUnsafeMutableBytes { try plan.write(message, into: $0) }
      #expect(buffer == reference, sourceLocation: sourceLocation)
    }
    let encoded: [UInt8] = try message.encodedBytes()
    #expect(encoded == reference, sourceLocation: sourceLocation)
    let data: Data = try message.encodedBytes()
    #expect(Array(data) == reference, sourceLocation: sourceLocation)
  }

  @Test("every field kind: extremes, packed and unpacked, maps, groups, deep nesting, unknown fields")
  func everyFieldKind() throws {
    try expectSameBytes(EveryFieldKind.sample)
    try expectSameBytes(EveryFieldKind())
  }

  @Test("answers as the domains give them: payloads packed, interactions nested in the user activity")
  func answers() throws {
    for activity in [nil, UserActivityDraft(activityType: "a", userInfo: ["thread": "7", "b": "", "ü": "é"])] {
      let answer = try InteractionBuilderTests.handled(userActivity: activity)
      try expectSameBytes(answer)
      try expectSameBytes(answer.interaction)
      try expectSameBytes(
        Intentmesh_V1_ConfirmResponse.with {
          $0.response = answer.response
          $0.interaction = answer.interaction
          $0.confirmationToken = "token"
        })
    }
    let resolve = Intentmesh_V1_ResolveResponse.with {
      $0.resolutions = (0..<3).map { index in
        .with {
          $0.parameter = "recipients"
          $0.isArray = index > 0
          $0.results = Array(repeating: .init(), count: index)
        }
      }
      $0.complete = true
    }
    try expectSameBytes(resolve)
  }

  @Test("the contracts' descriptor set: a large proto2 message")
  func descriptorSet() throws {
    let data = try #require(Data(base64Encoded: ReflectionDescriptorSet.base64, options: .ignoreUnknownCharacters))
    let set = try Google_Protobuf_FileDescriptorSet(serializedBytes: data)
    try expectSameBytes(set)
    #expect(try set.encodedBytes() as Data == data)
  }

  @Test("a message set's extensions are left to SwiftProtobuf's encoder")
  func messageSet() throws {
    var message = EveryFieldKind()
    message.asMessageSet = true
    #expect(throws: WireVisitor.MessageSetUnsupported.self) { try BinaryEncodingPlan(sizing: message) }
    try expectSameBytes(message, planned: false)
  }

  @Test("a message that traverses differently the second time: the plan refuses it, nothing is written past the buffer")
  func notRepeatable() throws {
    let message = Unrepeatable()
    let plan = try BinaryEncodingPlan(sizing: message)
    var buffer = [UInt8](repeating: 0xEE, count: plan.size + 64)
    #expect(throws: BinaryEncodingPlanMismatch.self) {
      try buffer.withUnsafeMutableBytes { try plan.write(message, into: .init(rebasing: $0[..<plan.size])) }
    }
    #expect(buffer[plan.size...].allSatisfy { $0 == 0xEE })
  }

  @Test("a message whose nested lengths come in another order the second time: caught, and SwiftProtobuf encodes it")
  func reordered() throws {
    let message = Alternating()
    // Same total size both passes; the two nested messages' lengths swapped.
    let plan = try BinaryEncodingPlan(sizing: message)
    var buffer = [UInt8](repeating: 0, count: plan.size)
    #expect(throws: BinaryEncodingPlanMismatch.self) {
      try buffer.withUnsafeMutableBytes { try plan.write(message, into: $0) }
    }
    let one: [UInt8] = [0x0A, 2, 0x08, 1]
    let three: [UInt8] = [0x12, 3, 0x08, 0xAC, 0x02]
    for _ in 0..<4 {
      let bytes: [UInt8] = try message.encodedBytes()
      #expect(bytes == one + three || bytes == three + one, "\(bytes)")
    }
  }

  @Test("varint sizes at each boundary")
  func varintSizes() {
    let cases: [(UInt64, Int)] = [
      (0, 1), (127, 1), (128, 2), (16_383, 2), (16_384, 3), (UInt64(UInt32.max), 5), (1 << 63 - 1, 9), (.max, 10),
    ]
    for (value, size) in cases { #expect(Wire.varintSize(value) == size, "\(value)") }
  }
}

/// A message written by hand for these tests: only encoded, never decoded or compared.
private protocol EncodedOnly: SwiftProtobuf.Message {}

extension EncodedOnly {
  var debugDescription: String { Self.protoMessageName }

  mutating func decodeMessage<D: SwiftProtobuf.Decoder>(decoder: inout D) throws {
    while try decoder.nextFieldNumber() != nil {}
  }

  func isEqualTo(message: any SwiftProtobuf.Message) -> Bool { false }
}

/// A message of every field kind, written by hand (the contracts are proto3 and use few kinds).
private struct EveryFieldKind: EncodedOnly, Equatable {
  static let protoMessageName = "intentmesh.test.EveryFieldKind"
  var unknownFields = UnknownStorage()
  var set = false
  var asMessageSet = false
  // Made once, like a generated message's stored fields: their maps iterate in one order (two
  // dictionaries of the same keys may iterate in different orders).
  var deep = Self.deepStruct
  var strings: [String: Int64] = ["a": -1, "": 0, "ü": .max]
  var enums: [Int32: Google_Protobuf_NullValue] = [-5: .nullValue, 7: .UNRECOGNIZED(2)]
  var messages: [UInt64: Google_Protobuf_Struct] = [:]

  static var sample: Self {
    var message = Self()
    message.set = true
    message.messages = [0: message.deep, .max: .init()]
    // Unknown fields as a decoder keeps them: field 99 (varint) and 100 (bytes) on a Duration.
    let unknown = Data([0x98, 0x06, 0x2A, 0xA2, 0x06, 0x02, 0x68, 0x69])
    message.unknownFields = try! Google_Protobuf_Duration(serializedBytes: unknown).unknownFields
    return message
  }

  func isEqualTo(message: any SwiftProtobuf.Message) -> Bool {
    (message as? Self) == self
  }

  static var deepStruct: Google_Protobuf_Struct {
    var inner = Google_Protobuf_Struct()
    inner.fields["n"] = .init(numberValue: -0.5)
    inner.fields["s"] = .init(stringValue: "snow ☃︎")
    var list = Google_Protobuf_ListValue()
    list.values = [.init(boolValue: true), .init(structValue: inner), Google_Protobuf_Value(nilLiteral: ())]
    var outer = Google_Protobuf_Struct()
    outer.fields["list"] = .init(listValue: list)
    outer.fields["inner"] = .init(structValue: inner)
    return outer
  }

  func traverse<V: SwiftProtobuf.Visitor>(visitor: inout V) throws {
    guard set || asMessageSet else { return }
    if asMessageSet {
      try visitor.visitExtensionFieldsAsMessageSet(fields: ExtensionFieldValueSet(), start: 1, end: 100)
      return
    }
    try visitor.visitSingularFloatField(value: -1.5, fieldNumber: 1)
    try visitor.visitSingularDoubleField(value: .pi, fieldNumber: 2)
    try visitor.visitSingularInt32Field(value: -1, fieldNumber: 3)
    try visitor.visitSingularInt64Field(value: .min, fieldNumber: 4)
    try visitor.visitSingularUInt32Field(value: .max, fieldNumber: 5)
    try visitor.visitSingularUInt64Field(value: .max, fieldNumber: 6)
    try visitor.visitSingularSInt32Field(value: .min, fieldNumber: 7)
    try visitor.visitSingularSInt64Field(value: -1, fieldNumber: 8)
    try visitor.visitSingularFixed32Field(value: 0xDEAD_BEEF, fieldNumber: 9)
    try visitor.visitSingularFixed64Field(value: .max - 1, fieldNumber: 10)
    try visitor.visitSingularSFixed32Field(value: -2, fieldNumber: 11)
    try visitor.visitSingularSFixed64Field(value: .min, fieldNumber: 12)
    try visitor.visitSingularBoolField(value: true, fieldNumber: 13)
    try visitor.visitSingularStringField(value: "Grüße, 🌈", fieldNumber: 14)
    try visitor.visitSingularStringField(value: "", fieldNumber: 15)
    try visitor.visitSingularBytesField(value: Data((0..<200).map { UInt8($0) }), fieldNumber: 16)
    try visitor.visitSingularBytesField(value: Data(), fieldNumber: 17)
    try visitor.visitSingularEnumField(value: Google_Protobuf_Syntax.editions, fieldNumber: 18)
    try visitor.visitSingularEnumField(value: Google_Protobuf_NullValue.UNRECOGNIZED(-3), fieldNumber: 19)
    try visitor.visitSingularMessageField(value: deep, fieldNumber: 20)
    try visitor.visitSingularMessageField(value: Google_Protobuf_Empty(), fieldNumber: 21)
    try visitor.visitSingularGroupField(value: Google_Protobuf_Duration.with { $0.seconds = -7 }, fieldNumber: 22)
    try visitor.visitRepeatedStringField(value: ["a", "", "ccc"], fieldNumber: 23)
    try visitor.visitRepeatedMessageField(value: [deep, .init()], fieldNumber: 24)
    try visitor.visitRepeatedInt32Field(value: [-1, 0, 1], fieldNumber: 25)
    try visitor.visitPackedFloatField(value: [0, -0.0, .infinity], fieldNumber: 26)
    try visitor.visitPackedDoubleField(value: [1e300, -2], fieldNumber: 27)
    try visitor.visitPackedInt32Field(value: [.min, -1, 0, 300], fieldNumber: 28)
    try visitor.visitPackedInt64Field(value: [.min, .max], fieldNumber: 29)
    try visitor.visitPackedUInt32Field(value: [0, .max], fieldNumber: 30)
    try visitor.visitPackedUInt64Field(value: [.max, 1 << 35], fieldNumber: 31)
    try visitor.visitPackedSInt32Field(value: [.min, .max, -1], fieldNumber: 32)
    try visitor.visitPackedSInt64Field(value: [.min, .max, -64, 63], fieldNumber: 33)
    try visitor.visitPackedFixed32Field(value: [1, 2], fieldNumber: 34)
    try visitor.visitPackedFixed64Field(value: [.max], fieldNumber: 35)
    try visitor.visitPackedSFixed32Field(value: [-1, .min], fieldNumber: 36)
    try visitor.visitPackedSFixed64Field(value: [-1], fieldNumber: 37)
    try visitor.visitPackedBoolField(value: [true, false, true], fieldNumber: 38)
    try visitor.visitPackedEnumField(
      value: [Google_Protobuf_Syntax.proto3, .UNRECOGNIZED(-9), .UNRECOGNIZED(1 << 20)], fieldNumber: 39)
    try visitor.visitMapField(
      fieldType: _ProtobufMap<ProtobufString, ProtobufSInt64>.self, value: strings,
      fieldNumber: 40)
    try visitor.visitMapField(
      fieldType: _ProtobufEnumMap<ProtobufInt32, Google_Protobuf_NullValue>.self,
      value: enums, fieldNumber: 41)
    try visitor.visitMapField(
      fieldType: _ProtobufMessageMap<ProtobufUInt64, Google_Protobuf_Struct>.self,
      value: messages, fieldNumber: 42)
    try visitor.visitSingularStringField(value: "last", fieldNumber: 536_870_911)
    try unknownFields.traverse(visitor: &visitor)
  }
}

/// A one-second duration at field 1 and a 300-second one at field 2, visited in the other order
/// on every other traversal.
private struct Alternating: EncodedOnly {
  static let protoMessageName = "intentmesh.test.Alternating"
  var unknownFields = UnknownStorage()
  let counter = Unrepeatable.Counter()

  func traverse<V: SwiftProtobuf.Visitor>(visitor: inout V) throws {
    counter.count += 1
    let fields = [(1, Google_Protobuf_Duration.with { $0.seconds = 1 }), (2, .with { $0.seconds = 300 })]
    for (number, duration) in counter.count.isMultiple(of: 2) ? fields.reversed() : fields {
      try visitor.visitSingularMessageField(value: duration, fieldNumber: number)
    }
  }
}

/// Visits one more field every time it is traversed.
private struct Unrepeatable: EncodedOnly {
  final class Counter: @unchecked Sendable { var count = 0 }

  static let protoMessageName = "intentmesh.test.Unrepeatable"
  var unknownFields = UnknownStorage()
  let counter = Counter()

  func traverse<V: SwiftProtobuf.Visitor>(visitor: inout V) throws {
    counter.count += 1
    for _ in 0..<counter.count {
      try visitor.visitSingularMessageField(value: Google_Protobuf_Duration.with { $0.seconds = 1 }, fieldNumber: 1)
    }
  }
}
