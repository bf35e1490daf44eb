/// gRPC's `grpc-timeout` header: one to eight ASCII digits and a unit (H, M, S, m, u, n).
package enum GRPCTimeout {
  /// The duration `text` names; nil when it is not a gRPC timeout.
  package static func parse(_ text: String) -> Duration? {
    let utf8 = text.utf8
    guard utf8.count >= 2, utf8.count <= 9, let unit = utf8.last else { return nil }
    var value: Int64 = 0
    for digit in utf8.dropLast() {
      guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
      value = value * 10 + Int64(digit - UInt8(ascii: "0"))
    }
    switch unit {
    case UInt8(ascii: "H"): return .seconds(value * 3600)
    case UInt8(ascii: "M"): return .seconds(value * 60)
    case UInt8(ascii: "S"): return .seconds(value)
    case UInt8(ascii: "m"): return .milliseconds(value)
    case UInt8(ascii: "u"): return .microseconds(value)
    case UInt8(ascii: "n"): return .nanoseconds(value)
    default: return nil
    }
  }
}
