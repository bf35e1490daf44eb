/// A whole answer the web side gives at once, without a call: a page of the web app, a
/// preflight's, a development token, a refusal. The relay writes it on the stream or HTTP/1.1
/// connection the request came on (`WebRequestCollector.items(of:)`).
struct WebAnswer: Sendable {
  var status: Int
  /// Header names lowercase; a `content-length` when there is one to say.
  var headers: [(String, String)]
  /// nil: no body at all (a 204, a 304, a HEAD).
  var body: [UInt8]?

  /// An answer with `body`, its length said.
  init(status: Int, headers: [(String, String)], body: [UInt8]) {
    self.status = status
    self.headers = headers + [("content-length", "\(body.count)")]
    self.body = body
  }

  /// An answer without a body; `headers` as they are.
  init(status: Int, headers: [(String, String)]) {
    self.status = status
    self.headers = headers
    self.body = nil
  }

  /// A line of text.
  static func plain(_ status: Int, _ text: String) -> WebAnswer {
    WebAnswer(
      status: status,
      headers: [("content-type", "text/plain; charset=utf-8"), ("x-content-type-options", "nosniff")],
      body: Array((text + "\n").utf8))
  }
}
