/// Where an answer the web side gives later goes (an MCP request's, whose work is a call and may
/// wait for the user): its status and headers, then pieces of its body as they come (a stream of
/// server-sent events), then its end — each part written on the event loop of the connection that
/// asked, in order. Parts after the end, or once the request's stream is gone, are dropped.
struct WebAnswerWriter: Sendable {
  enum Part: Sendable {
    case head(status: Int, headers: [(String, String)])
    case body([UInt8])
    case end
  }

  let write: @Sendable (Part) -> Void

  /// `answer` whole: its head, its body, its end.
  func answer(_ answer: WebAnswer) {
    write(.head(status: answer.status, headers: answer.headers))
    if let body = answer.body, !body.isEmpty { write(.body(body)) }
    write(.end)
  }
}
