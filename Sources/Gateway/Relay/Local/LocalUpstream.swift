internal import GRPCCore
internal import NIOCore
internal import NIOHPACK
internal import ProtoJSON
internal import ServiceKit

/// The upstream of a relayed call that the gateway's own gRPC server answers, in this process: the
/// call's request, as the relay would send it on an HTTP/2 stream, becomes the parts of an
/// `RPCStream` (`LocalCallExchange`) that the server runs as a task (`LocalServerTransport`); the
/// answer comes back to the call as the frames an HTTP/2 upstream would send. No socket, no second
/// HTTP/2 stack, no second encoding: messages stay in the relay's buffers.
///
/// As a gRPC transport does, it splits the request into its messages (a message over the limit
/// is refused from its prefix; a compressed one is inflated, never past the limit; a request cut
/// short inside a message is answered INTERNAL saying so). Flow control holds end to end: the
/// client is granted its bytes back as they come while the call has at most a window of whole
/// messages unread, and the call waits while a window of its answer has not left. Used only on
/// its event loop.
final class LocalUpstream: RelayUpstream {
  /// What the call's task hands the loop.
  enum Event {
    /// A piece of the answer.
    case response(RelayStream.Outgoing)
    /// The call has read request bytes that took this many on the wire.
    case requestRead(Int)
  }

  /// The stream the call sees, for the identity it compares (no HTTP/2 stream behind it).
  let stream: RelayStream
  /// As the gateway's gRPC server took them over HTTP/2: 16 KiB, what gRPC servers commonly take.
  let peerMaxHeaderListSize = RelayConnection.assumedMaxHeaderListSize
  private let transport: LocalServerTransport
  private let eventLoop: any EventLoop
  private let window: Int
  private var exchange: LocalCallExchange?
  private var deframer: GRPCMessageDeframer
  private var decompression: MessageDecompression?
  /// The request's method, for the statuses this side words itself.
  private var method = ""
  /// Where the answer stands, as the call has been handed it.
  private var response = Response.notStarted
  /// Request bytes taken but not yet granted back to the client.
  private var uncredited = 0
  /// Wire bytes of whole messages handed to the call that it has not read yet: while they are
  /// more than a window, the client is granted nothing more (a message still being assembled is
  /// granted as it comes, or a message larger than a window could never arrive).
  private var unread = 0

  private enum Response {
    case notStarted
    case headersSent
    /// This side answers the call itself (a bad request, a server shutting down): its status is
    /// on its way, and what the call's task writes is dropped.
    case answering
    /// The trailers have gone to the call.
    case ended
  }

  init(for call: RelayedCall, transport: LocalServerTransport, state: RelayLoopState, messageLimit: Int) {
    stream = RelayStream(
      id: 1, call: call, state: .openedByPeer, sendWindow: RelaySettings.initialWindowSize,
      receiveWindow: RelaySettings.initialWindowSize, openedAt: state.now)
    self.transport = transport
    eventLoop = state.eventLoop
    window = RelaySettings.initialWindowSize
    deframer = GRPCMessageDeframer(messageLimit: messageLimit)
  }

  // MARK: The request, from the call

  func send(_ item: RelayStream.Outgoing, on stream: RelayStream) {
    guard stream === self.stream, stream.call != nil, !stream.localEnded else { return }
    if item.endsStream { stream.state.endLocally() }
    switch item {
    case .headers(let headers, let end):
      if exchange == nil, case .notStarted = response { start(headers) }
      if end { requestEnded() }
    case .data(let data, let end):
      received(data)
      if end { requestEnded() }
    }
  }

  func credit(_ stream: RelayStream, _ bytes: Int) {
    exchange?.acknowledge(bytes)
  }

  func reset(_ stream: RelayStream, code: HTTP2Wire.ErrorCode) {
    stream.call = nil
    response = .ended
    exchange?.cancel(RPCError(code: .cancelled, message: "the client reset the stream"))
    exchange = nil
  }

  /// Starts the call with the request's HEADERS.
  private func start(_ headers: HPACKHeaders) {
    let path = headers.first(name: ":path") ?? ""
    method = LocalServerTransport.printable(path)
    guard let descriptor = LocalServerTransport.descriptor(path: path) else {
      return answer(.unimplemented, "\(method): not a gRPC method path")
    }
    let encoding = headers.first(name: "grpc-encoding")
    if !MessageDecompression.isIdentity(encoding) {
      guard let taken = encoding.flatMap(MessageDecompression.init(encoding:)) else {
        return answer(.unimplemented, "\(method): grpc-encoding \(encoding ?? "") is not taken (gzip, deflate)")
      }
      decompression = taken
    }
    let upstream = NIOLoopBound(Weak(self), eventLoop: eventLoop)
    let loop = eventLoop
    let exchange = LocalCallExchange(window: window) { event in
      loop.execute { upstream.value.upstream?.handle(event) }
    }
    exchange.deliver(.metadata(Self.metadata(of: headers)), wireBytes: 0)
    guard
      transport.accept(
        RPCStream(descriptor: descriptor, inbound: exchange.requestParts, outbound: exchange.responseWriter),
        exchange: exchange)
    else {
      return answer(.unavailable, "\(method): the gateway is shutting down")
    }
    self.exchange = exchange
  }

  /// More of the request's body: each message it completes goes to the call.
  private func received(_ data: ByteBuffer) {
    guard let exchange else { return }
    uncredited += data.readableBytes
    defer { creditWhatFits() }
    let messages: [GRPCMessageDeframer.Message]
    do {
      messages = try deframer.append(data)
    } catch {
      return refuse(
        .resourceExhausted,
        "\(method): the request message is \(error.length) bytes; this service accepts at most \(error.limit) (--max-message-bytes)"
      )
    }
    for message in messages {
      var bytes = message.bytes
      if message.compressed {
        guard let decompression else {
          return refuse(.internalError, "\(method): a compressed message without grpc-encoding")
        }
        do {
          bytes = try decompression.inflate(message.bytes, limit: deframer.messageLimit)
        } catch .tooLarge(let limit) {
          return refuse(
            .resourceExhausted,
            "\(method): the request message is over \(limit) bytes once inflated; this service accepts at most \(limit) (--max-message-bytes)"
          )
        } catch {
          return refuse(.internalError, "\(method): the compressed message is not a whole \(decompression) stream")
        }
      }
      unread += message.wireBytes
      exchange.deliver(.message(LocalCallBytes(bytes)), wireBytes: message.wireBytes)
    }
  }

  /// Grants the client back what it sent, unless the call has more than a window of it unread.
  private func creditWhatFits() {
    guard uncredited > 0, unread <= window, let call = stream.call else { return }
    let bytes = uncredited
    uncredited = 0
    call.sent(bytes, on: stream)
  }

  private func requestEnded() {
    guard let exchange else { return }
    if let incomplete = deframer.incompleteMessage {
      return refuse(.internalError, incomplete.statusMessage)
    }
    exchange.endRequest()
  }

  // MARK: The answer, from the call's task

  private func handle(_ event: Event) {
    guard let call = stream.call else { return }
    switch event {
    case .requestRead(let bytes):
      unread -= bytes
      creditWhatFits()
    case .response(let item):
      switch response {
      case .notStarted, .headersSent: forward(item, to: call)
      case .answering, .ended: break
      }
    }
  }

  private func forward(_ item: RelayStream.Outgoing, to call: RelayedCall) {
    if item.endsStream {
      response = .ended
      stream.state.endRemotely()
      // The call's task has nothing more to say; a request still coming is the call's to reset.
      if stream.localEnded { exchange = nil }
    } else {
      response = .headersSent
    }
    switch item {
    case .headers(let headers, let end): call.received(headers: headers, endStream: end, on: stream, from: self)
    case .data(let data, let end): call.received(data: data, endStream: end, on: stream, from: self)
    }
  }

  /// Ends a call whose task runs with `code`: the task is cancelled and the status goes to the client.
  private func refuse(_ code: Status.Code, _ message: String) {
    exchange?.cancel(RPCError(code: RPCError.Code(code) ?? .internalError, message: message))
    exchange = nil
    answer(code, message)
  }

  /// Answers the call with `code` and `message` as the server would (trailers-only before any of
  /// its answer, else trailers). The call hears of it on the loop's next turn, not from within its
  /// own `send`.
  private func answer(_ code: Status.Code, _ message: String) {
    let trailersOnly: Bool
    switch response {
    case .answering, .ended: return
    case .notStarted: trailersOnly = true
    case .headersSent: trailersOnly = false
    }
    response = .answering
    let trailers = GRPCResponseHeaders.trailers(Status(code: code, message: message), [:], trailersOnly: trailersOnly)
    let upstream = NIOLoopBound(self, eventLoop: eventLoop)
    eventLoop.execute {
      guard let call = upstream.value.stream.call else { return }
      upstream.value.forward(.headers(trailers, endStream: true), to: call)
    }
  }

  /// The request's metadata: every header but the pseudo-headers, binary ones (`-bin`) decoded.
  static func metadata(of headers: HPACKHeaders) -> Metadata {
    var metadata = Metadata()
    metadata.reserveCapacity(headers.count)
    for (name, value, _) in headers where !name.hasPrefix(":") {
      if name.hasSuffix("-bin"), let bytes = ProtoJSONCodec.base64Decoded(value) {
        metadata.addBinary(bytes, forKey: name)
      } else {
        metadata.addString(value, forKey: name)
      }
    }
    return metadata
  }
}

/// A reference that does not keep its object: the call's task holds its upstream by it, so an
/// upstream whose call is gone goes too.
private final class Weak<Object: AnyObject> {
  weak var upstream: Object?

  init(_ upstream: Object) {
    self.upstream = upstream
  }
}
