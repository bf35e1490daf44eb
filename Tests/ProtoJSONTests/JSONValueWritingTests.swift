@testable import ProtoJSON
import Testing

/// Compact JSON written straight to UTF-8: escapes exactly where JSON needs them, every other
/// character as its bytes, and what is written reads back as the same value.
@Suite("JSONValue: compact JSON in UTF-8")
struct JSONValueWritingTests {
  @Test(
    "strings: quotes, backslashes and control characters escaped; the rest as its UTF-8",
    arguments: [
      ("plain", #""plain""#), ("say \"hi\"", #""say \"hi\"""#), (#"a\b"#, #""a\\b""#),
      ("line\nfeed\rtab\t", #""line\nfeed\rtab\t""#), ("\u{08}\u{0C}", #""\b\f""#),
      ("\u{00}\u{1F}\u{7F}", "\"\\u0000\\u001f\u{7F}\""), ("Zürich ✨ 🦄", "\"Zürich ✨ 🦄\""),
      ("e\u{301}", "\"e\u{301}\""), ("\u{2028}", "\"\u{2028}\""),
    ])
  func strings(text: String, json: String) throws {
    let value = JSONValue.string(text)
    #expect(value.utf8 == Array(json.utf8))
    #expect(value.text == json)
    #expect(try JSONReader.read(value.utf8) == value)
  }

  @Test("objects, arrays, numbers as written, literals")
  func compound() throws {
    let value = JSONValue.object([
      ("a", .array([.number("1"), .number("-0.5e3"), .null, .bool(true), .bool(false)])),
      ("b", .object([])), ("c", .array([])), ("d\"", .string("")),
    ])
    #expect(value.text == #"{"a":[1,-0.5e3,null,true,false],"b":{},"c":[],"d\"":""}"#)
    #expect(try JSONReader.read(value.utf8) == value)
  }
}
