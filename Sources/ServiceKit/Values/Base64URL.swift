#if canImport(FoundationEssentials)
  package import FoundationEssentials
#else
  package import Foundation
#endif

/// Base64url without padding (RFC 4648 §5, as JOSE and the confirmation tokens write it).
package enum Base64URL {
  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// `data` in base64url without padding, written byte by byte (a confirmation token is made on
  /// every Confirm).
  package static func encoded(_ data: Data) -> String {
    let bytes = [UInt8](data)
    let length = (bytes.count * 4 + 2) / 3
    return String(unsafeUninitializedCapacity: length) { output in
      var written = 0
      var index = 0
      func put(_ sextet: UInt32) {
        output[written] = alphabet[Int(sextet & 0x3f)]
        written += 1
      }
      while index + 3 <= bytes.count {
        let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
        put(group >> 18)
        put(group >> 12)
        put(group >> 6)
        put(group)
        index += 3
      }
      switch bytes.count - index {
      case 1:
        let group = UInt32(bytes[index]) << 16
        put(group >> 18)
        put(group >> 12)
      case 2:
        let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
        put(group >> 18)
        put(group >> 12)
        put(group >> 6)
      default:
        break
      }
      return written
    }
  }

  /// The bytes `text` encodes; nil when it is not unpadded base64url.
  package static func decoded(_ text: some StringProtocol) -> Data? {
    guard !text.contains("=") else { return nil }
    var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
    standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
    return Data(base64Encoded: standard)
  }
}
