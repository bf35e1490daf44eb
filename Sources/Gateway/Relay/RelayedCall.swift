internal import NIOCore
internal import NIOHPACK

/// One call through the relay: the stream a client opened on the gateway and the stream the relay
/// opened upstream for it. It holds the request until it knows where the call goes — at once for
/// the gateway's own methods, after the first message for a pass-through method (the intent class
/// read by `IntentWireScan`) — then relays HEADERS, DATA and trailers both ways, payload
/// untouched. A client that resets its stream resets the upstream one; an upstream that resets
/// ends the client's stream with a gRPC status. Used only on its event loop.
final class RelayedCall {
  private let state: RelayLoopState
  private let client: RelayConnection
  private let clientStream: RelayStream
  private var upstream: RelayConnection?
  private var upstreamStream: RelayStream?

  private enum Phase {
    /// Collecting the request until the route is known.
    case routing
    /// Frames flow both ways.
    case relaying
  }

  private var phase = Phase.routing
  /// The request as received so far while routing; kept after sending (for one retry through the
  /// gateway's server) until the upstream answers.
  private var held: [RelayStream.Outgoing] = []
  private var keepForRetry = false
  private var retried = false
  private var toDomain = false
  private var requestEnded = false
  private var clientGone = false
  private var path = ""
  private var passThrough: (shape: IntentWireScan.Shape, streaming: Bool)?
  private var firstMessage: ByteBuffer?
  private var responseStarted = false
  private var responseEnded = false
  private var call: RelayMetrics.Call?
  /// DATA bytes taken from each side and not yet granted back: they wait on the other side.
  private var owedToClient = 0
  private var owedToUpstream = 0

  init(client: RelayConnection, stream: RelayStream, state: RelayLoopState) {
    self.client = client
    self.clientStream = stream
    self.state = state
  }

  private var router: RelayRouter { state.router }

  // MARK: Events from the connections

  /// The client opened the stream with `headers`.
  func started(headers: HPACKHeaders, endStream: Bool) {
    if endStream { requestEnded = true }
    held.append(.headers(headers, endStream: endStream))
    path = headers.first(name: ":path") ?? ""
    passThrough = RelayRouter.passThrough[path]
    if passThrough == nil || requestEnded { open(to: router.gatewayServer, domain: false) }
  }

  func received(headers: HPACKHeaders, endStream: Bool, on stream: RelayStream, from connection: RelayConnection) {
    if stream === clientStream {
      if endStream { requestEnded = true }
      forwardRequest(.headers(headers, endStream: endStream), bytes: 0)
    } else if stream === upstreamStream {
      if endStream {
        responseEnded = true
        state.metrics.finished(call, status: headers.first(name: "grpc-status"))
        call = nil
        upstreamAnswered(stream)
      }
      let first = !responseStarted
      responseArrived()
      if !clientGone {
        let headers = first ? RelayRouter.clientHeaders(headers) : headers
        client.send(.headers(headers, endStream: endStream), on: clientStream)
      }
    }
  }

  func received(data: ByteBuffer, endStream: Bool, on stream: RelayStream, from connection: RelayConnection) {
    if stream === clientStream {
      if endStream { requestEnded = true }
      forwardRequest(.data(data, endStream: endStream), bytes: data.readableBytes)
    } else if stream === upstreamStream {
      responseArrived()
      if endStream {
        responseEnded = true
        state.metrics.finished(call, status: nil)
        call = nil
        upstreamAnswered(stream)
      }
      if clientGone {
        connection.credit(stream, data.readableBytes)
      } else {
        owedToUpstream += data.readableBytes
        client.send(.data(data, endStream: endStream), on: clientStream)
      }
    } else {
      connection.credit(stream, data.readableBytes)  // a stream this call has left
    }
  }

  /// `bytes` of DATA left on `stream`: the side they came from may send as many again.
  func sent(_ bytes: Int, on stream: RelayStream) {
    if stream === clientStream {
      let granted = min(bytes, owedToUpstream)
      owedToUpstream -= granted
      if let upstream, let upstreamStream { upstream.credit(upstreamStream, granted) }
    } else if stream === upstreamStream {
      let granted = min(bytes, owedToClient)
      owedToClient -= granted
      client.credit(clientStream, granted)
    }
  }

  /// `stream` ended without finishing: reset by its peer, refused by a GOAWAY, or its connection
  /// is gone.
  func streamReset(_ stream: RelayStream, on connection: RelayConnection) {
    if stream === clientStream {
      clientReset()
    } else if stream === upstreamStream {
      upstreamReset()
    }
  }

  // MARK: The request

  private func forwardRequest(_ item: RelayStream.Outgoing, bytes: Int) {
    switch phase {
    case .relaying:
      if let upstream, let upstreamStream, !responseEnded {
        owedToClient += bytes
        upstream.send(item, on: upstreamStream)
      } else {
        client.credit(clientStream, bytes)  // the answer is complete: nobody takes the rest
      }
    case .routing:
      // Held until routed: granted back at once (a routed request is at most one message, checked
      // against the size limit before it is all here).
      client.credit(clientStream, bytes)
      held.append(item)
      route(after: item)
    }
  }

  /// Decides where the call goes as soon as the request so far allows.
  private func route(after item: RelayStream.Outgoing) {
    guard case .data(var bytes, _) = item, let shape = passThrough?.shape else {
      if requestEnded { open(to: router.gatewayServer, domain: false) }
      return
    }
    if firstMessage == nil {
      firstMessage = bytes
    } else {
      firstMessage!.writeBuffer(&bytes)
    }
    decideFromFirstMessage(shape: shape)
  }

  private func decideFromFirstMessage(shape: IntentWireScan.Shape) {
    guard let buffer = firstMessage, buffer.readableBytes >= 5,
      let compressed = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
      let length = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt32.self)
    else {
      if requestEnded { open(to: router.gatewayServer, domain: false) }
      return
    }
    // Compressed or oversized messages are the gateway server's to answer.
    guard compressed == 0, Int(length) <= router.maxRequestMessageBytes else {
      open(to: router.gatewayServer, domain: false)
      return
    }
    guard buffer.readableBytes >= 5 + Int(length) else {
      if requestEnded { open(to: router.gatewayServer, domain: false) }
      return
    }
    let message = buffer.getSlice(at: buffer.readerIndex + 5, length: Int(length))!
    if let found = IntentWireScan.scan(message, shape: shape), let domain = router.domain(for: found) {
      open(to: domain, domain: true)
    } else {
      open(to: router.gatewayServer, domain: false)
    }
  }

  private func open(to endpoint: DomainEndpoint, domain: Bool) {
    phase = .relaying
    firstMessage = nil  // the held frames carry the bytes; the scan copy is no longer needed
    toDomain = domain
    // The gateway's server counts the calls it answers; the relay counts those it takes to a domain.
    if domain { call = state.startedCall(path: path) }
    if domain, case .headers(let first, let end)? = held.first {
      let headers = router.upstreamHeaders(first, streaming: passThrough?.streaming ?? false).0
      held[0] = .headers(headers, endStream: end)
    }
    // A unary pass-through request is short: keep it until the domain answers, so that a stream the
    // domain refuses (GOAWAY, lost connection) can still be placed through the gateway's server.
    keepForRetry = domain && requestEnded
    let (connection, stream) = state.pool.openStream(to: endpoint, for: self)
    upstream = connection
    upstreamStream = stream
    let request = held
    if !keepForRetry { held.removeAll() }
    for item in request { connection.send(item, on: stream) }
  }

  /// Sends the held request to the gateway's server, which places it again or says why not.
  private func retryThroughGatewayServer() {
    retried = true
    keepForRetry = false
    state.metrics.abandoned(call)
    call = nil
    open(to: router.gatewayServer, domain: false)
  }

  // MARK: The answer

  private func responseArrived() {
    guard !responseStarted else { return }
    responseStarted = true
    held.removeAll()
    keepForRetry = false
  }

  /// The upstream's answer is complete; a request still being sent is of no more use to it.
  private func upstreamAnswered(_ stream: RelayStream) {
    guard !(stream.localEnded && stream.queue.isEmpty), let upstream else { return }
    upstream.reset(stream, code: .cancel)
    settle(client: true, upstream: false)
  }

  /// Ends the client's stream with a gRPC status: trailers-only if nothing was sent yet.
  private func failCall(status: Int, message: String) {
    guard !clientGone, !responseEnded else { return }
    var headers = HPACKHeaders()
    if !responseStarted {
      headers.add(name: ":status", value: "200")
      headers.add(name: "content-type", value: "application/grpc")
    }
    headers.add(name: "grpc-status", value: "\(status)")
    headers.add(name: "grpc-message", value: message)
    responseEnded = true
    responseStarted = true
    state.metrics.finished(call, status: "\(status)")
    call = nil
    client.send(.headers(headers, endStream: true), on: clientStream)
  }

  // MARK: Resets

  private func clientReset() {
    guard !clientGone else { return }
    clientGone = true
    if let upstream, let upstreamStream { upstream.reset(upstreamStream, code: .cancel) }
    if call != nil {
      state.metrics.finished(call, status: "1")  // the client cancelled
      call = nil
    }
    held.removeAll()
    firstMessage = nil
    settle(client: true, upstream: true)
  }

  private func upstreamReset() {
    settle(client: true, upstream: false)
    guard !responseEnded, !clientGone else { return }
    if !responseStarted && keepForRetry && !retried {
      retryThroughGatewayServer()
    } else {
      failCall(
        status: 14,
        message: toDomain ? "the domain reset the stream" : "the gateway's server reset the stream")
    }
  }

  /// Grants back what a side sent that will now never leave on the other.
  private func settle(client settleClient: Bool, upstream settleUpstream: Bool) {
    if settleClient && owedToClient > 0 {
      client.credit(clientStream, owedToClient)
      owedToClient = 0
    }
    if settleUpstream && owedToUpstream > 0, let upstream, let upstreamStream {
      upstream.credit(upstreamStream, owedToUpstream)
      owedToUpstream = 0
    }
  }
}
