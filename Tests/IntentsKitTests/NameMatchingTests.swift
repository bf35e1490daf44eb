import Foundation
@testable import ServiceKit
@testable import IntentMeshCore
import Testing

/// `NameMatching` folds names with the standard library alone (the gateway does not load
/// Foundation); here it is held to Foundation's case- and diacritic-insensitive folding.
@Suite("Name matching without Foundation")
struct NameMatchingTests {
  static func foundationFolding(_ name: String) -> String {
    name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
      .filter { !$0.isWhitespace && $0 != "-" && $0 != "." }
  }

  @Test("names people and apps use fold as Foundation folds them")
  func names() {
    let names = [
      "Ünïcorn Pay", "Zoë", "Çelestra", "Crème Brûlée", "naïve café", "straße", "STRASSE", "ﬁnance", "Ørsted",
      "Łukasz", "İstanbul", "ΆΈΉ", "Οδυσσεύς", "Ǆemal", "Ａｐｐ", "Ǻngström", "Sparkle-Sparkly", "corn.pay",
      "Señor Nuñez", "Dvořák", "Þórr", "Ærøskøbing", "Ωmega", "Привет Ёлка",
    ]
    for name in names {
      #expect(NameMatching.normalized(name) == Self.foundationFolding(name), "\(name)")
    }
  }

  @Test("every Latin, Greek and Cyrillic letter folds as in Foundation (dotless ı excepted)")
  func everyLetterOfTheCommonScripts() {
    var differing: [String] = []
    for value in UInt32(0x41)...0x52F where value != 0x131 {
      guard let scalar = Unicode.Scalar(value), scalar.properties.isAlphabetic,
        scalar.properties.generalCategory != .nonspacingMark
      else { continue }
      let letter = String(Character(scalar))
      if NameMatching.normalized(letter) != Self.foundationFolding(letter) { differing.append(letter) }
    }
    #expect(differing.isEmpty, "\(differing)")
  }

  @Test("the ASCII fast path folds every ASCII character as the Unicode path does; others take the Unicode path")
  func asciiFastPath() {
    for value in UInt8(0)..<0x80 {
      let name = "Ab\(Character(Unicode.Scalar(value)))Z z"
      #expect(NameMatching.asciiNormalized(name) == NameMatching.unicodeNormalized(name), "U+\(value)")
    }
    #expect(NameMatching.asciiNormalized("Zoë") == nil)
    #expect(NameMatching.normalized("Zoë Sparkle-Sparkly") == "zoesparklesparkly")
    #expect(NameMatching.matches(normalized: "celestra", "Celes Tra"))
    #expect(!NameMatching.matches(normalized: "", ""))
  }

  @Test("whole names match case-, accent- and space-insensitively")
  func matching() {
    #expect(NameMatching.matches("unicorn pay", "ÜnicornPay"))
    #expect(NameMatching.matches("Strasse", "Straße"))
    #expect(!NameMatching.matches("Unicorn", "UnicornPay"))
    #expect(!NameMatching.matches("", ""))
  }
}
