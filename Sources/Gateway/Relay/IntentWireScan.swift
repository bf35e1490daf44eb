internal import NIOCore

/// Reads what routing needs — the intent class, the app name, the locked-device flag — straight
/// from a pass-through request's protobuf bytes, without decoding the message. Every pass-through
/// request carries `RequestContext context = 1`; the intent is `Intent intent = 2`, except in
/// ConfigureView, where it is `Interaction interaction = 2` → `Intent intent = 2`.
enum IntentWireScan {
  /// What the scan found.
  struct Found: Equatable, Sendable {
    var intentClass = ""
    var appName = ""
    var deviceLocked = false
  }

  /// Where the intent sits in a request.
  enum Shape: Sendable {
    /// `intent = 2` (Resolve, Confirm, Handle, StartSendingUpdates).
    case intent
    /// `interaction = 2` → `intent = 2` (ConfigureView).
    case interaction
  }

  /// Scans `message` (one whole protobuf message, no gRPC prefix); nil when the bytes are not a
  /// well-formed message.
  static func scan(_ message: ByteBuffer, shape: Shape) -> Found? {
    var found = Found()
    var reader = message
    let ok = fields(of: &reader) { number, value in
      switch (number, value) {
      case (1, .bytes(var context)):
        return fields(of: &context) { number, value in
          if number == 3, case .varint(let flag) = value { found.deviceLocked = flag != 0 }
          return true
        }
      case (2, .bytes(var inner)):
        switch shape {
        case .intent: return intent(&inner, into: &found)
        case .interaction:
          return fields(of: &inner) { number, value in
            if number == 2, case .bytes(var intentBytes) = value { return intent(&intentBytes, into: &found) }
            return true
          }
        }
      default:
        return true
      }
    }
    return ok ? found : nil
  }

  private static func intent(_ bytes: inout ByteBuffer, into found: inout Found) -> Bool {
    fields(of: &bytes) { number, value in
      guard case .bytes(let text) = value else { return true }
      switch number {
      case 1: found.intentClass = String(buffer: text)
      case 4: found.appName = String(buffer: text)
      default: break
      }
      return true
    }
  }

  enum Value {
    case varint(UInt64)
    case bytes(ByteBuffer)
    case other
  }

  /// Calls `visit` with every field of the message in `buffer`, in order; false when the bytes are
  /// malformed or `visit` says so. Repeated fields arrive once per occurrence, so the last wins,
  /// as protobuf's merge rules say for strings and scalars.
  static func fields(of buffer: inout ByteBuffer, _ visit: (UInt64, Value) -> Bool) -> Bool {
    while buffer.readableBytes > 0 {
      guard let key = varint(&buffer), key >> 3 != 0 else { return false }
      let number = key >> 3
      switch key & 7 {
      case 0:
        guard let value = varint(&buffer), visit(number, .varint(value)) else { return false }
      case 1:
        guard buffer.readSlice(length: 8) != nil, visit(number, .other) else { return false }
      case 2:
        guard let length = varint(&buffer), length <= UInt64(buffer.readableBytes),
          let slice = buffer.readSlice(length: Int(length)), visit(number, .bytes(slice))
        else { return false }
      case 5:
        guard buffer.readSlice(length: 4) != nil, visit(number, .other) else { return false }
      default:
        return false  // groups (3, 4) are not used by proto3 contracts; 6 and 7 are invalid
      }
    }
    return true
  }

  static func varint(_ buffer: inout ByteBuffer) -> UInt64? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while shift < 64 {
      guard let byte = buffer.readInteger(as: UInt8.self) else { return nil }
      value |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return value }
      shift += 7
    }
    return nil
  }
}
