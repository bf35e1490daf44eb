@_spi(_Unicode) internal import Swift

/// How names spoken by a user are compared with names an app knows: case-, accent- and
/// space-insensitively ("CornPay" matches "corn pay", "Zoë" matches "zoe").
///
/// Folding uses only the standard library (canonical decomposition, then the combining diacritical
/// marks dropped), so the gateway needs no Foundation. For letters it agrees with Foundation's
/// `folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)` except in a few
/// historic forms (Greek iota subscripts, dotless ı, capital ẞ); `NameMatchingTests` checks that.
package enum NameMatching {
  /// The comparable form of `name`.
  package static func normalized(_ name: String) -> String {
    asciiNormalized(name) ?? unicodeNormalized(name)
  }

  /// The comparable form of any `name`, by Unicode's case mappings and canonical decomposition.
  static func unicodeNormalized(_ name: String) -> String {
    // Upper- then lower-casing applies the full case mappings (ß and SS, ﬁ and fi fold alike).
    var folded = String.UnicodeScalarView()
    for scalar in name.uppercased().lowercased()._nfd where !isCombiningDiacritic(scalar) {
      if scalar.properties.isWhitespace || scalar == "-" || scalar == "." { continue }
      folded.append(scalar)
    }
    return String(folded)
  }

  /// Whether `spoken` names `known`.
  package static func matches(_ spoken: String, _ known: String) -> Bool {
    !spoken.isEmpty && normalized(spoken) == normalized(known)
  }

  /// Whether a spoken name already `normalized` names `known`: a name asked for once and compared
  /// with many is folded once.
  package static func matches(normalized spoken: String, _ known: String) -> Bool {
    !spoken.isEmpty && spoken == normalized(known)
  }

  /// The comparable form of an all-ASCII `name` (most names), folded byte by byte: the same as the
  /// general path gives it (ASCII has no accents, and its case mapping is A–Z to a–z); nil for a
  /// name with any other character.
  static func asciiNormalized(_ name: String) -> String? {
    var name = name
    return name.withUTF8 { bytes -> String? in
      guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
      return String(unsafeUninitializedCapacity: bytes.count) { buffer in
        var count = 0
        for byte in bytes {
          switch byte {
          case 0x09...0x0D, 0x20, UInt8(ascii: "-"), UInt8(ascii: "."): continue
          case UInt8(ascii: "A")...UInt8(ascii: "Z"): buffer[count] = byte + 0x20
          default: buffer[count] = byte
          }
          count += 1
        }
        return count
      }
    }
  }

  /// The Unicode blocks of combining diacritical marks (accents, not the vowel signs of other scripts).
  static func isCombiningDiacritic(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F: true
    default: false
    }
  }
}
