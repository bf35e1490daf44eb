@testable import ProtoJSON
import Testing

@Suite("JSONReader and JSONValue: strict JSON without Foundation")
struct JSONReaderTests {
  @Test("values, member order, numbers kept as written, escapes and surrogate pairs")
  func reads() throws {
    let value = try JSONReader.read(#" {"b": [1, -2.5e3, true, false, null], "a": "x\"\\\/\n\u00e9\ud83e\udd84"} "#)
    #expect(value.members?.map(\.0) == ["b", "a"])
    #expect(value["b"] == .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null]))
    #expect(value["a"] == .string("x\"\\/\né🦄"))
    #expect(try JSONReader.read("12345678901234567890") == .number("12345678901234567890"))
  }

  @Test("written back compactly, control characters escaped, and read again to the same value")
  func writes() throws {
    let value = JSONValue.object([
      ("text", .string("tab\there \"quoted\" \u{01} é")), ("list", .array([.integer(3), .double(0.5), .null])),
      ("nan", .double(.nan)),
    ])
    #expect(value.text == #"{"text":"tab\there \"quoted\" \u0001 é","list":[3,0.5,null],"nan":"NaN"}"#)
    #expect(try JSONReader.read(value.text) == value)
  }

  @Test(
    "refused with the byte where it went wrong",
    arguments: [
      "", "{", "[1,]", #"{"a":1,}"#, #"{"a":1,"a":2}"#, "01", "1.", "-", "tru", #""\x""#, #""\ud800""#, "\"a\nb\"",
      "{} {}", #"{"a" 1}"#, "[1 2]",
    ])
  func refuses(text: String) {
    #expect(throws: ProtoJSONError.self) { try JSONReader.read(text) }
  }

  @Test("nesting deeper than the limit is refused, not a stack overflow")
  func depth() {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    #expect(throws: ProtoJSONError.self) { try JSONReader.read(deep) }
    #expect((try? JSONReader.read(String(repeating: "[", count: 10) + String(repeating: "]", count: 10))) != nil)
  }
}
