import Foundation
import ServiceKit
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

  @Test("whole names match case-, accent- and space-insensitively")
  func matching() {
    #expect(NameMatching.matches("unicorn pay", "ÜnicornPay"))
    #expect(NameMatching.matches("Strasse", "Straße"))
    #expect(!NameMatching.matches("Unicorn", "UnicornPay"))
    #expect(!NameMatching.matches("", ""))
  }
}
