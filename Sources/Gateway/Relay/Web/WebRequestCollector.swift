internal import NIOCore
internal import NIOHPACK

/// A web stream the relay answers itself, without a call — a page's GET, a CORS preflight, a
/// development token's POST, a refusal — its request collected whole (a body of at most
/// `maxBodyBytes`), and the answer written as the stream's HEADERS and DATA.
struct WebRequestCollector {
  typealias Outgoing = RelayStream.Outgoing

  /// The largest body such a request may have (a development token's request is a few bytes).
  static let maxBodyBytes = 64 << 10

  enum Step {
    /// The request is not whole yet: `held` more bytes are held.
    case collecting(held: Int)
    /// The request is whole.
    case complete(WebRequest)
    /// Its body is larger than `maxBodyBytes`.
    case tooLarge
    /// The request was whole already.
    case ignored
  }

  private let method: String
  private let uri: String
  private let headers: [(String, String)]
  private var body: [UInt8] = []
  private var whole = false

  /// A stream opened with `headers`; `:authority` is the request's `host`, as HTTP/1.1 says it.
  init(headers: HPACKHeaders) {
    method = headers.first(name: ":method") ?? ""
    uri = headers.first(name: ":path") ?? "/"
    var plain: [(String, String)] = []
    for (name, value, _) in headers where !name.hasPrefix(":") { plain.append((name.lowercased(), value)) }
    if let authority = headers.first(name: ":authority"), !plain.contains(where: { $0.0 == "host" }) {
      plain.append(("host", authority))
    }
    self.headers = plain
  }

  /// The client sent `item`.
  mutating func received(_ item: Outgoing) -> Step {
    guard !whole else { return .ignored }
    switch item {
    case .headers:
      return ended()
    case .data(let data, let end):
      body += data.readableBytesView
      guard body.count <= Self.maxBodyBytes else {
        whole = true
        body = []
        return .tooLarge
      }
      return end ? ended() : .collecting(held: data.readableBytes)
    }
  }

  private mutating func ended() -> Step {
    whole = true
    defer { body = [] }
    return .complete(WebRequest(method: method, uri: uri, headers: headers, body: body))
  }

  /// `answer` as an HTTP/2 stream's frames.
  static func items(of answer: WebAnswer) -> [Outgoing] {
    let head = head(status: answer.status, headers: answer.headers)
    guard let body = answer.body, !body.isEmpty else { return [.headers(head, endStream: true)] }
    return [.headers(head, endStream: false), .data(ByteBuffer(bytes: body), endStream: true)]
  }

  /// An answer's HEADERS: its status and headers, without HTTP/1.1's connection headers.
  static func head(status: Int, headers: [(String, String)]) -> HPACKHeaders {
    var head = HPACKHeaders()
    head.add(name: ":status", value: "\(status)")
    for (name, value) in headers where !["connection", "keep-alive", "transfer-encoding"].contains(name) {
      head.add(name: name, value: value)
    }
    return head
  }
}
