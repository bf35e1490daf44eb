internal import NIOHPACK

/// What RFC 9113 §8.2–8.3 asks of the header list a client sends, checked before anything is
/// forwarded: a request that fails is malformed, and its stream ends with RST_STREAM
/// PROTOCOL_ERROR (a stream error: the connection and every other call on it go on).
enum HeaderListCheck {
  /// Why a header list is malformed.
  enum Violation: Equatable, CustomStringConvertible {
    case uppercaseName(String)
    case invalidNameCharacter(String)
    case invalidValueCharacter(String)
    case pseudoHeaderAfterRegular(String)
    case unknownPseudoHeader(String)
    case duplicatePseudoHeader(String)
    case missingPseudoHeader(String)
    case pseudoHeaderInTrailers(String)
    case connectionSpecific(String)
    case teNotTrailers
    case invalidPath

    var description: String {
      switch self {
      case .uppercaseName(let name): "the field name \"\(name)\" has uppercase letters"
      case .invalidNameCharacter(let name): "the field name \"\(name)\" has a character names may not have"
      case .invalidValueCharacter(let name): "the value of \(name) has CR, LF, NUL or surrounding whitespace"
      case .pseudoHeaderAfterRegular(let name): "\(name) comes after a regular field"
      case .unknownPseudoHeader(let name): "\(name) is not a request pseudo-header"
      case .duplicatePseudoHeader(let name): "\(name) is given twice"
      case .missingPseudoHeader(let name): "\(name) is missing"
      case .pseudoHeaderInTrailers(let name): "trailers may not carry \(name)"
      case .connectionSpecific(let name): "\(name) is connection-specific and not allowed in HTTP/2"
      case .teNotTrailers: "te may only be \"trailers\""
      case .invalidPath: ":path must start with /"
      }
    }
  }

  /// The size of `headers` as SETTINGS_MAX_HEADER_LIST_SIZE counts it: each field's name and value
  /// plus 32 bytes.
  static func listSize(_ headers: HPACKHeaders) -> Int {
    var size = 0
    for (name, value, _) in headers { size += name.utf8.count + value.utf8.count + 32 }
    return size
  }

  /// The first way a request's opening header list is malformed, or nil when it is well formed.
  static func request(_ headers: HPACKHeaders) -> Violation? {
    var seen: UInt8 = 0
    var regular = false
    for (name, value, _) in headers {
      if let violation = field(name, value) { return violation }
      if name.utf8.first == UInt8(ascii: ":") {
        guard !regular else { return .pseudoHeaderAfterRegular(name) }
        let bit: UInt8
        switch name {
        case ":method": bit = 1
        case ":scheme": bit = 2
        case ":path":
          bit = 4
          guard value.utf8.first == UInt8(ascii: "/") else { return .invalidPath }
        case ":authority": bit = 8
        default: return .unknownPseudoHeader(name)
        }
        guard seen & bit == 0 else { return .duplicatePseudoHeader(name) }
        seen |= bit
      } else {
        regular = true
        if let violation = regularField(name, value) { return violation }
      }
    }
    if seen & 1 == 0 { return .missingPseudoHeader(":method") }
    if seen & 2 == 0 { return .missingPseudoHeader(":scheme") }
    if seen & 4 == 0 { return .missingPseudoHeader(":path") }
    return nil
  }

  /// The first way a request's trailers are malformed, or nil.
  static func trailers(_ headers: HPACKHeaders) -> Violation? {
    for (name, value, _) in headers {
      if let violation = field(name, value) { return violation }
      if name.utf8.first == UInt8(ascii: ":") { return .pseudoHeaderInTrailers(name) }
      if let violation = regularField(name, value) { return violation }
    }
    return nil
  }

  private static func regularField(_ name: String, _ value: String) -> Violation? {
    switch name {
    case "connection", "proxy-connection", "keep-alive", "transfer-encoding", "upgrade":
      return .connectionSpecific(name)
    case "te":
      return value == "trailers" ? nil : .teNotTrailers
    default:
      return nil
    }
  }

  /// RFC 9113 §8.2.1: names are lowercase visible ASCII (a pseudo-header starts with its colon);
  /// values have no NUL, CR or LF and no whitespace at either end.
  private static func field(_ name: String, _ value: String) -> Violation? {
    var utf8 = name.utf8[...]
    if utf8.first == UInt8(ascii: ":") { utf8 = utf8.dropFirst() }
    if utf8.isEmpty { return .invalidNameCharacter(name) }
    for byte in utf8 {
      if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { return .uppercaseName(name) }
      if byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: ":") { return .invalidNameCharacter(name) }
    }
    let bytes = value.utf8
    if let first = bytes.first, first == 0x20 || first == 0x09 { return .invalidValueCharacter(name) }
    if let last = bytes.last, last == 0x20 || last == 0x09 { return .invalidValueCharacter(name) }
    for byte in bytes where byte == 0 || byte == 0x0A || byte == 0x0D { return .invalidValueCharacter(name) }
    return nil
  }
}
