/// Reads JSON text (RFC 8259) into a `JSONValue`, without Foundation. Strict: one value and
/// whitespace only, no trailing commas, no duplicate member names, nesting at most `maxDepth` deep
/// (so that hostile input cannot exhaust the stack).
package struct JSONReader {
  private let bytes: [UInt8]
  private var position = 0
  private let maxDepth: Int

  /// Reads `bytes` (UTF-8).
  package static func read(_ bytes: some Sequence<UInt8>, maxDepth: Int = 64) throws(ProtoJSONError) -> JSONValue {
    var reader = JSONReader(bytes: Array(bytes), maxDepth: maxDepth)
    let value = try reader.value(depth: 0)
    reader.skipWhitespace()
    guard reader.position == reader.bytes.count else { throw reader.failure("text after the JSON value") }
    return value
  }

  /// Reads `text`.
  package static func read(_ text: String, maxDepth: Int = 64) throws(ProtoJSONError) -> JSONValue {
    try read(Array(text.utf8), maxDepth: maxDepth)
  }

  private init(bytes: [UInt8], maxDepth: Int) {
    self.bytes = bytes
    self.maxDepth = maxDepth
  }

  private func failure(_ what: String) -> ProtoJSONError {
    ProtoJSONError("invalid JSON at byte \(position): \(what)")
  }

  private mutating func skipWhitespace() {
    while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
  }

  private mutating func value(depth: Int) throws(ProtoJSONError) -> JSONValue {
    guard depth < maxDepth else { throw failure("nested deeper than \(maxDepth)") }
    skipWhitespace()
    guard position < bytes.count else { throw failure("the text ends where a value should be") }
    switch bytes[position] {
    case UInt8(ascii: "{"): return try object(depth: depth)
    case UInt8(ascii: "["): return try array(depth: depth)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    default: return try number()
    }
  }

  private mutating func literal(_ word: String, _ value: JSONValue) throws(ProtoJSONError) -> JSONValue {
    let expected = Array(word.utf8)
    guard position + expected.count <= bytes.count, Array(bytes[position..<position + expected.count]) == expected
    else { throw failure("not a JSON value") }
    position += expected.count
    return value
  }

  private mutating func object(depth: Int) throws(ProtoJSONError) -> JSONValue {
    position += 1
    var members: [(String, JSONValue)] = []
    var names = Set<String>()
    skipWhitespace()
    if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
      position += 1
      return .object([])
    }
    while true {
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("a member name") }
      let name = try string()
      guard names.insert(name).inserted else { throw failure("the member \"\(name)\" appears twice") }
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure("':' after a name") }
      position += 1
      members.append((name, try value(depth: depth + 1)))
      skipWhitespace()
      guard position < bytes.count else { throw failure("an unfinished object") }
      if bytes[position] == UInt8(ascii: "}") {
        position += 1
        return .object(members)
      }
      guard bytes[position] == UInt8(ascii: ",") else { throw failure("',' or '}' in an object") }
      position += 1
    }
  }

  private mutating func array(depth: Int) throws(ProtoJSONError) -> JSONValue {
    position += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
      position += 1
      return .array([])
    }
    while true {
      elements.append(try value(depth: depth + 1))
      skipWhitespace()
      guard position < bytes.count else { throw failure("an unfinished array") }
      if bytes[position] == UInt8(ascii: "]") {
        position += 1
        return .array(elements)
      }
      guard bytes[position] == UInt8(ascii: ",") else { throw failure("',' or ']' in an array") }
      position += 1
    }
  }

  private mutating func number() throws(ProtoJSONError) -> JSONValue {
    let start = position
    func digits() -> Int {
      let first = position
      while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
        position += 1
      }
      return position - first
    }
    if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
    let integer = position
    guard digits() > 0 else { throw failure("not a JSON value") }
    if bytes[integer] == UInt8(ascii: "0"), position - integer > 1 { throw failure("a number with a leading zero") }
    if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
      position += 1
      guard digits() > 0 else { throw failure("a fraction without digits") }
    }
    if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
      position += 1
      if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
        position += 1
      }
      guard digits() > 0 else { throw failure("an exponent without digits") }
    }
    return .number(String(decoding: bytes[start..<position], as: UTF8.self))
  }

  private mutating func string() throws(ProtoJSONError) -> String {
    position += 1  // the opening quote
    var runStart = position
    var text = ""
    func flushRun() {
      text += String(decoding: bytes[runStart..<position], as: UTF8.self)
    }
    while true {
      guard position < bytes.count else { throw failure("an unfinished string") }
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        flushRun()
        position += 1
        return text
      }
      guard byte >= 0x20 else { throw failure("a control character in a string") }
      guard byte == UInt8(ascii: "\\") else {
        position += 1
        continue
      }
      flushRun()
      position += 1
      guard position < bytes.count else { throw failure("an unfinished escape") }
      let escaped = bytes[position]
      position += 1
      let scalar: Unicode.Scalar
      switch escaped {
      case UInt8(ascii: "\""): scalar = "\""
      case UInt8(ascii: "\\"): scalar = "\\"
      case UInt8(ascii: "/"): scalar = "/"
      case UInt8(ascii: "b"): scalar = "\u{08}"
      case UInt8(ascii: "f"): scalar = "\u{0C}"
      case UInt8(ascii: "n"): scalar = "\n"
      case UInt8(ascii: "r"): scalar = "\r"
      case UInt8(ascii: "t"): scalar = "\t"
      case UInt8(ascii: "u"):
        let unit = try hex4()
        if (0xD800..<0xDC00).contains(unit) {
          guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
            bytes[position + 1] == UInt8(ascii: "u")
          else { throw failure("a lone surrogate") }
          position += 2
          let low = try hex4()
          guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate") }
          scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
        } else {
          guard let single = Unicode.Scalar(unit) else { throw failure("a lone surrogate") }
          scalar = single
        }
      default: throw failure("an unknown escape")
      }
      text.unicodeScalars.append(scalar)
      runStart = position
    }
  }

  private mutating func hex4() throws(ProtoJSONError) -> UInt32 {
    guard position + 4 <= bytes.count,
      let unit = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
    else { throw failure("\\u needs four hex digits") }
    position += 4
    return unit
  }
}
