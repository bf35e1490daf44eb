internal import GRPCCore
internal import NIOCore
internal import NIOHPACK
internal import ProtoJSON
internal import ServiceKit

/// A Connect or gRPC-Web call on one of the relay's HTTP/2 streams, carried upstream as gRPC on
/// the relay's own streams: the request's headers and its one message become a gRPC request, and
/// the gRPC answer becomes the web protocol's — Connect's unary status and error object, its
/// stream envelopes and end-of-stream object, gRPC-Web's frames and trailers frame, as base64 if
/// the request was `application/grpc-web-text`. Binary messages are reframed, never decoded; JSON
/// is transcoded once by the gateway's descriptors. Tested without sockets
/// (`WebCallTranslationTests`); `RelayedCall` does what it says.
///
/// What it holds: the request until it is whole (one message, at most `maxBodyBytes`; granted
/// back to the client as it comes, the caller counting it in the loop's routing budget), and of
/// the answer a JSON message as far as it came, or for Connect's unary form the whole answer until
/// its status is known. Each piece of the answer says how many bytes of the upstream's DATA it
/// was made from are still owed (granted back once the piece has left: a slow reader slows the
/// upstream down); bytes held past half a stream window are granted back at once (`absorbed`), so
/// a message larger than a window still comes whole.
struct WebCallTranslation {
  typealias Outgoing = RelayStream.Outgoing

  /// Something to send to the client.
  struct Piece: Equatable {
    var item: Outgoing
    /// Bytes of the upstream's DATA it was made from and still owed: granted back once it has left.
    var sourceBytes: Int
  }

  /// What the answer so far turns into: pieces for the client, and bytes of the upstream's DATA to
  /// grant back at once (held here, or dropped).
  struct Output: Equatable {
    var pieces: [Piece] = []
    var absorbed = 0
  }

  /// What to do with a piece of the request.
  enum RequestStep: Equatable {
    /// The request is not whole yet: `held` more bytes are held (the client gets them back at once).
    case collecting(held: Int)
    /// The request is whole: its one message, framed as gRPC; nothing is held any more.
    case complete(ByteBuffer)
    /// The request is not one the method takes: answer it with this (nothing is held any more).
    case refused(ConnectFailure)
    /// The request was whole already: nothing to do but grant the bytes back.
    case ignored
  }

  /// The longest a response message may grow while held (a JSON message, or a unary answer).
  static let maxHeldAnswerBytes = 16 << 20

  let kind: ConnectRequestKind
  let path: String
  let request: WebCallRequest
  /// The request's headers as the upstream gets them: a gRPC request.
  let grpcHeaders: HPACKHeaders
  let codec: ProtoJSONCodec
  /// CORS headers for the request's origin, on every answer.
  let cors: [(String, String)]
  /// The largest message taken (`--max-message-bytes`), and the largest body that frames it.
  private let maxMessageBytes: Int
  private let maxBodyBytes: Int
  private var body: ByteBuffer?
  private var requestWhole = false
  var response = ResponseState.waiting

  /// How the answer has progressed.
  enum ResponseState {
    /// Nothing from the upstream yet.
    case waiting
    /// Connect's unary form: the upstream's headers and its DATA, held until its status.
    case unary(headers: HPACKHeaders, body: ByteBuffer?)
    /// The head has gone to the client; a message (JSON) as far as it came, of which the last
    /// `owed` bytes are still owed to the upstream.
    case streaming(pending: ByteBuffer?, owed: Int)
    /// The client's answer is complete.
    case ended
    /// Only while an event changes the state in place.
    case modifying
  }

  /// A web call with the client's request `headers`, or nil when they are not one the relay carries
  /// (not a POST of a web content type to a method it knows, or headers the web side refuses: it
  /// answers those as it always has). `deadline`: the default and cap of a call's deadline.
  init?(
    headers: HPACKHeaders, schema: ProtoSchema, cors policy: CORSPolicy, maxMessageBytes: Int, deadline: CallDeadline
  ) {
    guard let target = headers.first(name: ":path") else { return nil }
    let path: String
    let kind: ConnectRequestKind
    // A Connect GET carries its message in the query: the body it would have had.
    var query: ConnectGetRequest?
    switch headers.first(name: ":method") {
    case "POST":
      guard let type = headers.first(name: "content-type").flatMap(ConnectRequestKind.init(contentType:)) else {
        return nil
      }
      (path, kind) = (target, type)
    case "GET":
      guard let get = try? ConnectGetRequest.parse(target) else { return nil }
      (path, kind, query) = (get.path, .unary(get.codec), get)
    default:
      return nil
    }
    var plain: [(String, String)] = []
    for (name, value, _) in headers where !name.hasPrefix(":") { plain.append((name, value)) }
    guard
      let request = try? WebCallRequest(path: path, headers: plain, kind: kind, schema: schema, viaGet: query != nil)
    else { return nil }
    body = query.map { ByteBuffer(bytes: $0.message) }
    self.kind = kind
    self.path = path
    self.request = request
    self.codec = ProtoJSONCodec(schema: schema)
    self.cors = policy.responseHeaders(origin: headers.first(name: "origin"))
    self.maxMessageBytes = maxMessageBytes
    // An envelope's five bytes; a text body is base64, a third longer than the bytes it carries.
    self.maxBodyBytes = kind.isText ? (maxMessageBytes + 5 + 2) / 3 * 4 : maxMessageBytes + 5
    let timeout = WebDeadline.timeout(
      asked: request.timeout, streaming: request.method.serverStreaming, deadline: deadline)
    grpcHeaders = Self.grpcHeaders(of: headers, path: path, metadata: request.metadata, timeout: timeout)
    // The caller's own deadline, and a stream's longest life, are the relay's to keep; a unary
    // call's default the upstream keeps.
    enforcedTimeout = request.timeout != nil || request.method.serverStreaming ? timeout : nil
  }

  /// The deadline the relay keeps for the call, if any.
  let enforcedTimeout: Duration?

  /// What set the deadline, for the message a call past it ends with.
  var deadlineSource: String {
    guard request.timeout != nil else { return "a web stream lasts at most \(WebDeadline.maximumStreamDuration)" }
    if case .grpcWeb = kind { return "grpc-timeout" }
    return "connect-timeout-ms"
  }

  private static func grpcHeaders(of headers: HPACKHeaders, path: String, metadata: Metadata, timeout: Duration)
    -> HPACKHeaders
  {
    var grpc = HPACKHeaders()
    grpc.add(name: ":method", value: "POST")
    grpc.add(name: ":scheme", value: headers.first(name: ":scheme") ?? "http")
    grpc.add(name: ":path", value: path)
    if let authority = headers.first(name: ":authority") { grpc.add(name: ":authority", value: authority) }
    grpc.add(name: "content-type", value: "application/grpc")
    grpc.add(name: "te", value: "trailers")
    grpc.add(name: "grpc-timeout", value: RelayRouter.timeoutHeader(timeout), indexing: .nonIndexable)
    // Values that differ from call to call (tokens, request ids) would fill HPACK's dynamic table.
    for entry in metadata {
      switch entry.value {
      case .string(let text): grpc.add(name: entry.key, value: text, indexing: .nonIndexable)
      case .binary(let bytes): grpc.add(name: entry.key, value: ProtoJSONCodec.base64(bytes), indexing: .nonIndexable)
      }
    }
    return grpc
  }

  // MARK: The request

  /// The client sent `item`.
  mutating func requestReceived(_ item: Outgoing) -> RequestStep {
    guard !requestWhole else { return .ignored }
    switch item {
    case .headers:
      // Trailers: the request ends here (a web client sends none; their content is not metadata).
      return requestEnded()
    case .data(var data, let end):
      let count = data.readableBytes
      if body == nil { body = data.compacted() } else { body!.writeBuffer(&data) }
      guard body!.readableBytes <= maxBodyBytes else {
        requestWhole = true
        body = nil
        return .refused(
          ConnectFailure(
            code: .resourceExhausted,
            message: "the request body is larger than this gateway takes (--max-message-bytes \(maxMessageBytes))"))
      }
      return end ? requestEnded() : .collecting(held: count)
    }
  }

  /// The request is of no more use (the call was refused or reset): nothing more of it is held.
  mutating func dropRequest() {
    requestWhole = true
    body = nil
  }

  private mutating func requestEnded() -> RequestStep {
    requestWhole = true
    let bytes = body.map { Array($0.readableBytesView) } ?? []
    body = nil
    do {
      let message = try request.message(in: bytes, codec: codec)
      var framed = ByteBuffer()
      framed.reserveCapacity(5 + message.count)
      framed.writeInteger(UInt8(0))
      framed.writeInteger(UInt32(message.count))
      framed.writeBytes(message)
      return .complete(framed)
    } catch {
      return .refused(error)
    }
  }
}
