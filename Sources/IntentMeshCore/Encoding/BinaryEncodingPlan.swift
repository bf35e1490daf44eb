internal import Foundation
package import SwiftProtobuf

/// A message's binary encoding in two passes: one that counts every byte and records each nested
/// message's length, and one that writes, taking those lengths from the record. SwiftProtobuf's
/// `serializedBytes()` sizes a nested message again at every level that contains it (its issue
/// #713), so a message `d` levels deep is sized `d + 1` times — an `Interaction` inside a
/// response's user activity, with its intent's and response's payloads, about six. Same bytes.
struct BinaryEncodingPlan {
  /// Bytes of the whole message.
  let size: Int
  /// Each nested message's and map entry's length, in visiting order.
  let nestedSizes: [Int]

  /// The sizing pass over `message`.
  init(sizing message: some SwiftProtobuf.Message) throws {
    var visitor = WireVisitor(sizing: WireSizer(nestedCapacity: 16))
    try message.traverse(visitor: &visitor)
    size = visitor.sizer.size
    nestedSizes = visitor.sizer.nestedSizes
  }

  /// The writing pass: `message` (the one sized) into `buffer` of exactly `size` bytes.
  func write(_ message: some SwiftProtobuf.Message, into buffer: UnsafeMutableRawBufferPointer) throws {
    var visitor = WireVisitor(writing: WireWriter(into: buffer, nestedSizes: nestedSizes))
    try message.traverse(visitor: &visitor)
    guard visitor.writer.isComplete else { throw BinaryEncodingPlanMismatch(type: type(of: message)) }
  }
}

/// The writing pass did not see what the sizing pass saw (a message whose traversal is not
/// repeatable, e.g. a map made anew on each traversal, iterated in another order): the buffer's
/// bytes are not an encoding.
struct BinaryEncodingPlanMismatch: Error, CustomStringConvertible {
  let type: any SwiftProtobuf.Message.Type

  var description: String {
    "\(type.protoMessageName) traversed differently when written than when sized"
  }
}

extension SwiftProtobuf.Message {
  /// The message's protobuf binary encoding — the bytes `serializedBytes()` gives — with each
  /// nested message sized once (`BinaryEncodingPlan`). Like `serializedBytes()`: a message with
  /// unset required fields (proto2) is refused, and so is one of 2 GiB or more (with the same error
  /// `serializedBytes()` gives for it). A message set's extensions (proto2) and a message that
  /// traverses differently the second time are left to `serializedBytes()`, which sizes each nested
  /// message just before writing it.
  package func encodedBytes<Bytes: SwiftProtobufContiguousBytes>() throws -> Bytes {
    guard isInitialized else { throw SwiftProtobuf.BinaryEncodingError.missingRequiredFields }
    let plan: BinaryEncodingPlan
    do {
      plan = try BinaryEncodingPlan(sizing: self)
    } catch is WireVisitor.MessageSetUnsupported {
      return try serializedBytes()
    }
    guard plan.size < 0x7fff_ffff else { throw SwiftProtobuf.BinaryEncodingError.missingRequiredFields }
    var bytes = Bytes(repeating: 0, count: plan.size)
    do {
      try bytes.withUnsafeMutableBytes { try plan.write(self, into: $0) }
    } catch is BinaryEncodingPlanMismatch {
      return try serializedBytes()
    }
    return bytes
  }
}
