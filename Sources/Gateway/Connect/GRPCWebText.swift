/// `application/grpc-web-text`: gRPC-Web's frames in standard base64, as browsers that cannot
/// read binary streams send and read them. A body may be several base64 pieces one after the
/// other, each padded (a client or proxy encodes each chunk it writes); answers are written so
/// too, one padded piece per chunk sent, which every grpc-web client reads.
enum GRPCWebText {
  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
  private static let padding = UInt8(ascii: "=")

  /// Each ASCII byte's 6-bit value; 0xFF: not base64.
  private static let values: [UInt8] = {
    var values = [UInt8](repeating: 0xFF, count: 256)
    for (index, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(index) }
    return values
  }()

  /// `bytes` as one padded base64 piece.
  static func encoded(_ bytes: some Collection<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var iterator = bytes.makeIterator()
    while let first = iterator.next() {
      let second = iterator.next()
      let third = iterator.next()
      let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
      out.append(alphabet[Int(group >> 18 & 0x3F)])
      out.append(alphabet[Int(group >> 12 & 0x3F)])
      out.append(second == nil ? padding : alphabet[Int(group >> 6 & 0x3F)])
      out.append(third == nil ? padding : alphabet[Int(group & 0x3F)])
    }
    return out
  }

  /// The bytes of a body of padded base64 pieces (whitespace between them ignored); nil when it
  /// is not that.
  static func decoded(_ text: some Collection<UInt8>) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(text.count / 4 * 3)
    var group: UInt32 = 0
    var count = 0
    var pad = 0
    for byte in text {
      switch byte {
      case UInt8(ascii: " "), UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: "\t"):
        continue
      case padding:
        // "xx==" or "xxx=": the group ends here.
        guard count >= 2 else { return nil }
        pad += 1
        count += 1
      default:
        let value = values[Int(byte)]
        guard value != 0xFF, pad == 0 else { return nil }
        group = group << 6 | UInt32(value)
        count += 1
      }
      guard count == 4 else { continue }
      group <<= 6 * UInt32(pad)
      out.append(UInt8(group >> 16 & 0xFF))
      if pad < 2 { out.append(UInt8(group >> 8 & 0xFF)) }
      if pad < 1 { out.append(UInt8(group & 0xFF)) }
      (group, count, pad) = (0, 0, 0)
    }
    return count == 0 ? out : nil
  }
}
