package import Foundation

/// Bytes as base64 text (RFC 4648), written from the bytes in place: the standard alphabet with
/// `=` padding (§4, what `Data.base64EncodedString()` writes, ~7 instructions a byte through
/// Foundation's generic encoder) or base64url without padding (§5, as JOSE writes it).
package enum Base64Text {
  package enum Alphabet: Sendable {
    /// A–Z a–z 0–9 + /, padded with `=` to a multiple of four characters.
    case standard
    /// A–Z a–z 0–9 - _, unpadded.
    case url
  }

  private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
  private static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// `data` as base64 text in `alphabet`.
  package static func encoded(_ data: Data, _ alphabet: Alphabet) -> String {
    data.withUnsafeBytes { encoded($0, alphabet) }
  }

  package static func encoded(_ bytes: UnsafeRawBufferPointer, _ alphabet: Alphabet) -> String {
    let padded = alphabet == .standard
    let characters = alphabet == .standard ? standard : url
    let length = padded ? (bytes.count + 2) / 3 * 4 : (bytes.count * 4 + 2) / 3
    return characters.withUnsafeBufferPointer { characters in
      String(unsafeUninitializedCapacity: length) { output in
        var written = 0
        func put(_ sextet: UInt32) {
          output[written] = characters[Int(sextet & 0x3f)]
          written += 1
        }
        var index = 0
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
        while padded, written < length {
          output[written] = UInt8(ascii: "=")
          written += 1
        }
        return written
      }
    }
  }
}
