import Foundation
import IntentMeshCore
import ServiceKit
import Testing

@Suite("Base64url without padding")
struct Base64URLTests {
  /// Foundation's base64 with `+/` made `-_` and the padding dropped: what RFC 4648 §5 says.
  static func reference(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }

  @Test("every length from 0 to 100 bytes, every byte value: as RFC 4648 §5 writes it, and read back")
  func encodesAsTheRFC() {
    var generator = SystemRandomNumberGenerator()
    for length in 0...100 {
      for _ in 0..<8 {
        let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let encoded = Base64URL.encoded(data)
        #expect(encoded == Self.reference(data), "\(length) bytes")
        #expect(Base64URL.decoded(encoded) == data, "\(length) bytes")
      }
    }
    let all = Data((0...255).map { UInt8($0) })
    #expect(Base64URL.encoded(all) == Self.reference(all))
    #expect(Base64URL.encoded(Data([0xfb, 0xff])) == "-_8")
    #expect(Base64URL.encoded(Data()) == "")
  }

  @Test("the standard alphabet, padded: what Foundation writes, every length from 0 to 100 bytes, and read back")
  func standardAlphabet() {
    var generator = SystemRandomNumberGenerator()
    for length in 0...100 {
      for _ in 0..<8 {
        let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let encoded = Base64Text.encoded(data, .standard)
        #expect(encoded == data.base64EncodedString(), "\(length) bytes")
        #expect(Data(base64Encoded: encoded) == data, "\(length) bytes")
      }
    }
    let all = Data((0...255).map { UInt8($0) })
    #expect(Base64Text.encoded(all, .standard) == all.base64EncodedString())
    #expect(Base64Text.encoded(Data([0xfb, 0xff]), .standard) == "+/8=")
    #expect(Base64Text.encoded(Data([0xfb]), .standard) == "+w==")
  }

  @Test(
    "what is not unpadded base64url is refused: padding, the standard alphabet's + and /, other characters, a length no encoding has, unused bits set",
    arguments: ["AA==", "AAA=", "a+b/", "ab cd", "ab\ncd", "é", "A", "AAAAA", "AB", "AAB", "_x", "__9"])
  func refusesWhatIsNotBase64URL(text: String) {
    #expect(Base64URL.decoded(text) == nil)
  }

  @Test("a substring of a longer text reads as the same text alone (a JWT's parts are substrings)")
  func readsSubstrings() {
    let token = "eyJhbGciOiJFZERTQSJ9.-_8.AQID"
    let parts = token.split(separator: ".")
    #expect(Base64URL.decoded(parts[0]) == Data(#"{"alg":"EdDSA"}"#.utf8))
    #expect(Base64URL.decoded(parts[1]) == Data([0xfb, 0xff]))
    #expect(Base64URL.decoded(parts[2]) == Data([1, 2, 3]))
    #expect(Base64URL.decoded("") == Data())
  }
}
