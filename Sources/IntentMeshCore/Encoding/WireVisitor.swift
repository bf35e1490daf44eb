internal import Foundation
internal import SwiftProtobuf

/// Protobuf's binary encoding of every field kind, as SwiftProtobuf's own encoder lays it out
/// (same bytes): run once counting (`WireSizer`) and once writing (`WireWriter`). One concrete
/// type for both passes, not one generic over the two: the generated `traverse` reaches a visitor
/// through its witness table, where a generic visitor stays unspecialized.
struct WireVisitor: SwiftProtobuf.Visitor {
  /// A message set's extensions (proto2's `message_set_wire_format`): not encoded here.
  struct MessageSetUnsupported: Error {}

  private(set) var sizer: WireSizer
  private(set) var writer: WireWriter
  private let writing: Bool

  /// The sizing pass.
  init(sizing sizer: WireSizer) {
    self.sizer = sizer
    writer = .none
    writing = false
  }

  /// The writing pass.
  init(writing writer: WireWriter) {
    sizer = WireSizer()
    self.writer = writer
    writing = true
  }

  // MARK: The pass's sink

  private mutating func varint(_ value: UInt64) {
    if writing { writer.varint(value) } else { sizer.varint(value) }
  }

  private mutating func fixed32(_ value: UInt32) {
    if writing { writer.fixed32(value) } else { sizer.fixed32(value) }
  }

  private mutating func fixed64(_ value: UInt64) {
    if writing { writer.fixed64(value) } else { sizer.fixed64(value) }
  }

  private mutating func lengthDelimited(_ string: String) {
    if writing { writer.lengthDelimited(string) } else { sizer.lengthDelimited(string) }
  }

  private mutating func lengthDelimited(_ data: Data) {
    if writing { writer.lengthDelimited(data) } else { sizer.lengthDelimited(data) }
  }

  private mutating func raw(_ data: Data) {
    if writing { writer.raw(data) } else { sizer.raw(data) }
  }

  /// The length of what follows until `endNested`: a nested message or a map entry.
  private mutating func beginNested() -> Int {
    writing ? writer.beginNested() : sizer.beginNested()
  }

  private mutating func endNested(_ nesting: Int) {
    if writing { writer.endNested(nesting) } else { sizer.endNested(nesting) }
  }

  private mutating func tag(_ fieldNumber: Int, _ format: Wire.Format) {
    varint(Wire.tag(fieldNumber, format))
  }

  // MARK: Singular fields

  mutating func visitSingularFloatField(value: Float, fieldNumber: Int) throws {
    tag(fieldNumber, .fixed32)
    fixed32(value.bitPattern)
  }

  mutating func visitSingularDoubleField(value: Double, fieldNumber: Int) throws {
    tag(fieldNumber, .fixed64)
    fixed64(value.bitPattern)
  }

  mutating func visitSingularInt32Field(value: Int32, fieldNumber: Int) throws {
    tag(fieldNumber, .varint)
    varint(Wire.signExtended(value))
  }

  mutating func visitSingularInt64Field(value: Int64, fieldNumber: Int) throws {
    tag(fieldNumber, .varint)
    varint(UInt64(bitPattern: value))
  }

  mutating func visitSingularUInt32Field(value: UInt32, fieldNumber: Int) throws {
    tag(fieldNumber, .varint)
    varint(UInt64(value))
  }

  mutating func visitSingularUInt64Field(value: UInt64, fieldNumber: Int) throws {
    tag(fieldNumber, .varint)
    varint(value)
  }

  mutating func visitSingularSInt32Field(value: Int32, fieldNumber: Int) throws {
    tag(fieldNumber, .varint)
    varint(Wire.zigZag(Int64(value)))
  }

  mutating func visitSingularSInt64Field(value: Int64, fieldNumber: Int) throws {
    tag(fieldNumber, .varint)
    varint(Wire.zigZag(value))
  }

  mutating func visitSingularFixed32Field(value: UInt32, fieldNumber: Int) throws {
    tag(fieldNumber, .fixed32)
    fixed32(value)
  }

  mutating func visitSingularFixed64Field(value: UInt64, fieldNumber: Int) throws {
    tag(fieldNumber, .fixed64)
    fixed64(value)
  }

  mutating func visitSingularSFixed32Field(value: Int32, fieldNumber: Int) throws {
    tag(fieldNumber, .fixed32)
    fixed32(UInt32(bitPattern: value))
  }

  mutating func visitSingularSFixed64Field(value: Int64, fieldNumber: Int) throws {
    tag(fieldNumber, .fixed64)
    fixed64(UInt64(bitPattern: value))
  }

  mutating func visitSingularBoolField(value: Bool, fieldNumber: Int) throws {
    tag(fieldNumber, .varint)
    varint(value ? 1 : 0)
  }

  mutating func visitSingularStringField(value: String, fieldNumber: Int) throws {
    tag(fieldNumber, .lengthDelimited)
    lengthDelimited(value)
  }

  mutating func visitSingularBytesField(value: Data, fieldNumber: Int) throws {
    tag(fieldNumber, .lengthDelimited)
    lengthDelimited(value)
  }

  mutating func visitSingularEnumField<E: SwiftProtobuf.Enum>(value: E, fieldNumber: Int) throws {
    tag(fieldNumber, .varint)
    varint(Wire.signExtended(value.rawValue))
  }

  mutating func visitSingularMessageField<M: SwiftProtobuf.Message>(value: M, fieldNumber: Int) throws {
    tag(fieldNumber, .lengthDelimited)
    let nesting = beginNested()
    try value.traverse(visitor: &self)
    endNested(nesting)
  }

  mutating func visitSingularGroupField<G: SwiftProtobuf.Message>(value: G, fieldNumber: Int) throws {
    tag(fieldNumber, .startGroup)
    try value.traverse(visitor: &self)
    tag(fieldNumber, .endGroup)
  }

  // MARK: Repeated (unpacked) fields

  // One singular field per element, as Visitor's defaults write them; messages and strings walked
  // in place (the defaults, unspecialized in SwiftProtobuf, copy each element out: every string of
  // a message retained and released, once for sizing and once for writing). The other kinds are
  // the defaults'.

  mutating func visitRepeatedMessageField<M: SwiftProtobuf.Message>(value: [M], fieldNumber: Int) throws {
    try value.withUnsafeBufferPointer { elements in
      for index in elements.indices { try visitSingularMessageField(value: elements[index], fieldNumber: fieldNumber) }
    }
  }

  mutating func visitRepeatedStringField(value: [String], fieldNumber: Int) throws {
    try value.withUnsafeBufferPointer { elements in
      for index in elements.indices { try visitSingularStringField(value: elements[index], fieldNumber: fieldNumber) }
    }
  }

  // MARK: Packed fields

  /// One length-delimited field of `values`, each written by `element` without a tag.
  private mutating func packed<T>(
    _ values: [T], fieldNumber: Int, length: Int, _ element: (inout Self, T) -> Void
  ) {
    tag(fieldNumber, .lengthDelimited)
    varint(UInt64(length))
    for value in values { element(&self, value) }
  }

  private mutating func packedVarints<T>(_ values: [T], fieldNumber: Int, _ varint: (T) -> UInt64) {
    let length = values.reduce(0) { $0 + Wire.varintSize(varint($1)) }
    packed(values, fieldNumber: fieldNumber, length: length) { $0.varint(varint($1)) }
  }

  mutating func visitPackedFloatField(value: [Float], fieldNumber: Int) throws {
    packed(value, fieldNumber: fieldNumber, length: 4 * value.count) { $0.fixed32($1.bitPattern) }
  }

  mutating func visitPackedDoubleField(value: [Double], fieldNumber: Int) throws {
    packed(value, fieldNumber: fieldNumber, length: 8 * value.count) { $0.fixed64($1.bitPattern) }
  }

  mutating func visitPackedInt32Field(value: [Int32], fieldNumber: Int) throws {
    packedVarints(value, fieldNumber: fieldNumber) { Wire.signExtended($0) }
  }

  mutating func visitPackedInt64Field(value: [Int64], fieldNumber: Int) throws {
    packedVarints(value, fieldNumber: fieldNumber) { UInt64(bitPattern: $0) }
  }

  mutating func visitPackedUInt32Field(value: [UInt32], fieldNumber: Int) throws {
    packedVarints(value, fieldNumber: fieldNumber) { UInt64($0) }
  }

  mutating func visitPackedUInt64Field(value: [UInt64], fieldNumber: Int) throws {
    packedVarints(value, fieldNumber: fieldNumber) { $0 }
  }

  mutating func visitPackedSInt32Field(value: [Int32], fieldNumber: Int) throws {
    packedVarints(value, fieldNumber: fieldNumber) { Wire.zigZag(Int64($0)) }
  }

  mutating func visitPackedSInt64Field(value: [Int64], fieldNumber: Int) throws {
    packedVarints(value, fieldNumber: fieldNumber) { Wire.zigZag($0) }
  }

  mutating func visitPackedFixed32Field(value: [UInt32], fieldNumber: Int) throws {
    packed(value, fieldNumber: fieldNumber, length: 4 * value.count) { $0.fixed32($1) }
  }

  mutating func visitPackedFixed64Field(value: [UInt64], fieldNumber: Int) throws {
    packed(value, fieldNumber: fieldNumber, length: 8 * value.count) { $0.fixed64($1) }
  }

  mutating func visitPackedSFixed32Field(value: [Int32], fieldNumber: Int) throws {
    packed(value, fieldNumber: fieldNumber, length: 4 * value.count) { $0.fixed32(UInt32(bitPattern: $1)) }
  }

  mutating func visitPackedSFixed64Field(value: [Int64], fieldNumber: Int) throws {
    packed(value, fieldNumber: fieldNumber, length: 8 * value.count) { $0.fixed64(UInt64(bitPattern: $1)) }
  }

  mutating func visitPackedBoolField(value: [Bool], fieldNumber: Int) throws {
    packed(value, fieldNumber: fieldNumber, length: value.count) { $0.varint($1 ? 1 : 0) }
  }

  mutating func visitPackedEnumField<E: SwiftProtobuf.Enum>(value: [E], fieldNumber: Int) throws {
    packedVarints(value, fieldNumber: fieldNumber) { Wire.signExtended($0.rawValue) }
  }

  // MARK: Maps: one length-delimited entry per key, the key as field 1 and the value as field 2

  private mutating func entries<K, V>(
    _ map: [K: V], fieldNumber: Int, _ entry: (inout Self, K, V) throws -> Void
  ) rethrows {
    for (key, value) in map {
      tag(fieldNumber, .lengthDelimited)
      let nesting = beginNested()
      try entry(&self, key, value)
      endNested(nesting)
    }
  }

  mutating func visitMapField<KeyType, ValueType: MapValueType>(
    fieldType: _ProtobufMap<KeyType, ValueType>.Type,
    value: _ProtobufMap<KeyType, ValueType>.BaseType,
    fieldNumber: Int
  ) throws {
    try entries(value, fieldNumber: fieldNumber) { visitor, key, value in
      try KeyType.visitSingular(value: key, fieldNumber: 1, with: &visitor)
      try ValueType.visitSingular(value: value, fieldNumber: 2, with: &visitor)
    }
  }

  mutating func visitMapField<KeyType, ValueType>(
    fieldType: _ProtobufEnumMap<KeyType, ValueType>.Type,
    value: _ProtobufEnumMap<KeyType, ValueType>.BaseType,
    fieldNumber: Int
  ) throws where ValueType.RawValue == Int {
    try entries(value, fieldNumber: fieldNumber) { visitor, key, value in
      try KeyType.visitSingular(value: key, fieldNumber: 1, with: &visitor)
      try visitor.visitSingularEnumField(value: value, fieldNumber: 2)
    }
  }

  mutating func visitMapField<KeyType, ValueType>(
    fieldType: _ProtobufMessageMap<KeyType, ValueType>.Type,
    value: _ProtobufMessageMap<KeyType, ValueType>.BaseType,
    fieldNumber: Int
  ) throws {
    try entries(value, fieldNumber: fieldNumber) { visitor, key, value in
      try KeyType.visitSingular(value: key, fieldNumber: 1, with: &visitor)
      try visitor.visitSingularMessageField(value: value, fieldNumber: 2)
    }
  }

  // MARK: Extensions and unknown fields

  // Extension fields: Visitor's default, each extension field visited as a field.

  mutating func visitExtensionFieldsAsMessageSet(fields: ExtensionFieldValueSet, start: Int, end: Int) throws {
    throw MessageSetUnsupported()
  }

  mutating func visitUnknown(bytes: Data) throws {
    raw(bytes)
  }
}
