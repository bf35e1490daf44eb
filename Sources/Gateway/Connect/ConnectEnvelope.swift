/// One enveloped message of the Connect streaming protocol and of gRPC-Web: a flags byte, a
/// 4-byte big-endian length, the message. Connect's flag 0x02 marks the end-of-stream message;
/// gRPC-Web's 0x80 the trailers; 0x01 a compressed message (not accepted here).
struct ConnectEnvelope: Equatable {
  var flags: UInt8
  var payload: [UInt8]

  static let compressed: UInt8 = 0x01
  static let endOfStream: UInt8 = 0x02
  static let trailers: UInt8 = 0x80

  /// The envelope's bytes.
  var bytes: [UInt8] {
    let length = UInt32(payload.count)
    return [flags, UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)]
      + payload
  }

  /// The envelopes of a whole request body; nil when it is cut short or has bytes after the last.
  static func split(_ body: [UInt8]) -> [ConnectEnvelope]? {
    var envelopes: [ConnectEnvelope] = []
    var position = 0
    while position < body.count {
      guard body.count - position >= 5 else { return nil }
      let length =
        Int(body[position + 1]) << 24 | Int(body[position + 2]) << 16 | Int(body[position + 3]) << 8
        | Int(body[position + 4])
      guard body.count - position - 5 >= length else { return nil }
      envelopes.append(
        ConnectEnvelope(flags: body[position], payload: Array(body[position + 5..<position + 5 + length])))
      position += 5 + length
    }
    return envelopes
  }
}
