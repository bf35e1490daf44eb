#if canImport(FoundationEssentials)
  package import FoundationEssentials
#else
  package import Foundation
#endif

/// Base64url without padding (RFC 4648 §5, as JOSE and the confirmation tokens write it).
package enum Base64URL {
  package static func encoded(_ data: Data) -> String {
    String(
      data.base64EncodedString().compactMap { character -> Character? in
        switch character {
        case "+": "-"
        case "/": "_"
        case "=": nil
        default: character
        }
      })
  }

  /// The bytes `text` encodes; nil when it is not unpadded base64url.
  package static func decoded(_ text: some StringProtocol) -> Data? {
    guard !text.contains("=") else { return nil }
    var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
    standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
    return Data(base64Encoded: standard)
  }
}
