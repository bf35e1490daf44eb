#if canImport(FoundationEssentials)
  package import FoundationEssentials
#else
  package import Foundation
#endif
internal import IntentMeshCore

/// Base64url without padding (RFC 4648 §5, as JOSE and the confirmation tokens write it).
package enum Base64URL {
  /// `data` in base64url without padding.
  package static func encoded(_ data: Data) -> String {
    Base64Text.encoded(data, .url)
  }

  /// The bytes `text` encodes; nil when it is not unpadded base64url: a character outside the
  /// alphabet (`=`, `+`, `/` included), a length no encoding has (4n + 1), or a last character whose
  /// unused bits are not zero (each byte string has one encoding). Read byte by byte (a confirmation
  /// token is checked on every Handle that needs one).
  package static func decoded(_ text: some StringProtocol) -> Data? {
    decoded(String(text))
  }

  /// The bytes `text` encodes (`decoded(_:)` for a string, read from its UTF-8 in place: the
  /// generic one, called from another module, walks the characters through the protocol's
  /// witnesses at ~300 instructions a character).
  package static func decoded(_ text: String) -> Data? {
    var text = text
    return text.withUTF8 { decoded(utf8: $0) }
  }

  private static func decoded(utf8 characters: UnsafeBufferPointer<UInt8>) -> Data? {
    guard characters.count % 4 != 1 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(characters.count * 3 / 4)
    var group: UInt32 = 0
    var pending = 0
    for character in characters {
      guard let sextet = sextet(of: character) else { return nil }
      group = group << 6 | sextet
      pending += 1
      if pending == 4 {
        bytes.append(UInt8(truncatingIfNeeded: group >> 16))
        bytes.append(UInt8(truncatingIfNeeded: group >> 8))
        bytes.append(UInt8(truncatingIfNeeded: group))
        group = 0
        pending = 0
      }
    }
    switch pending {
    case 2:
      guard group & 0xf == 0 else { return nil }
      bytes.append(UInt8(truncatingIfNeeded: group >> 4))
    case 3:
      guard group & 0x3 == 0 else { return nil }
      bytes.append(UInt8(truncatingIfNeeded: group >> 10))
      bytes.append(UInt8(truncatingIfNeeded: group >> 2))
    default:
      break
    }
    return Data(bytes)
  }

  /// The value of one base64url character, nil for any other byte.
  private static func sextet(of character: UInt8) -> UInt32? {
    switch character {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(character - UInt8(ascii: "A"))
    case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(character - UInt8(ascii: "a")) + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(character - UInt8(ascii: "0")) + 52
    case UInt8(ascii: "-"): 62
    case UInt8(ascii: "_"): 63
    default: nil
    }
  }
}
