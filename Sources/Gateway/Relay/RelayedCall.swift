internal import NIOCore
internal import NIOHPACK

/// One call through the relay: the stream a client opened on the gateway and the stream the relay
/// opened upstream for it. It holds the request until it knows where the call goes — at once for
/// the gateway's own methods, after the first message for a pass-through method (the intent class
/// read by `IntentWireScan`) — then relays HEADERS, DATA and trailers both ways, payload
/// untouched. A client that resets its stream resets the upstream one; an upstream that resets
/// ends the client's stream with a gRPC status.
///
/// While it routes, a call holds its request without granting the client more window, so a
/// client can make it hold at most one stream window; the bytes all calls of a loop hold are
/// bounded too (`RelayLimits.maxRoutingBytes`), and so is the time the first message may take.
/// A request the relay can tell is wrong from its first bytes — a message larger than the limit,
/// a compressed message without `grpc-encoding` — is answered by the relay itself. Used only on
/// its event loop.
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
    /// The relay answered the call itself; what the client still sends is dropped.
    case answered
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
  private var encoding: String?
  private var passThrough: (shape: IntentWireScan.Shape, streaming: Bool)?
  private var firstMessage: ByteBuffer?
  private var responseStarted = false
  private var responseEnded = false
  private var call: RelayMetrics.Call?
  /// DATA bytes taken from each side and not yet granted back: they wait on the other side.
  private var owedToClient = 0
  private var owedToUpstream = 0
  /// Request bytes held while routing, counted in the loop's `routingBytes`.
  private var heldBytes = 0

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
    encoding = headers.first(name: "grpc-encoding").flatMap { $0 == "identity" ? nil : $0 }
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
    releaseHeld()
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
      // Held until routed, and granted back only once sent on: the client can make the call hold
      // no more than the stream's window. What is held keeps its own bytes, not the read buffer.
      var kept = item
      if case .data(let bytes, let end) = item { kept = .data(bytes.compacted(), endStream: end) }
      held.append(kept)
      heldBytes += bytes
      state.routingBytes += bytes
      guard state.routingBytes <= state.routingBudget else {
        return refuse(
          status: 8,
          message:
            "the gateway holds too many requests still being routed (\(state.limits.maxRoutingBytes) bytes); try again")
      }
      route(after: kept)
    case .answered:
      client.credit(clientStream, bytes)
    }
  }

  /// Whether the call still waits for what it is routed by.
  var isRouting: Bool { phase == .routing }

  /// The first message did not come in time (`RelayLimits.firstMessageTimeout`).
  func firstMessageTimedOut() {
    guard phase == .routing else { return }
    state.events.record("call_timed_out", code: "FIRST_MESSAGE", detail: path)
    refuse(
      status: 4,
      message: "\(path): the request's first message did not arrive within \(state.limits.firstMessageTimeout)")
  }

  /// Answers the call with `status` without routing it, and ends the client's stream.
  private func refuse(status: Int, message: String) {
    phase = .answered
    firstMessage = nil
    held.removeAll()
    let owed = heldBytes
    releaseHeld()
    failCall(status: status, message: message)
    client.credit(clientStream, owed)
  }

  /// Forgets the bytes held while routing from the loop's count.
  private func releaseHeld() {
    state.routingBytes -= heldBytes
    heldBytes = 0
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
    guard Int(length) <= router.maxRequestMessageBytes else {
      return refuse(
        status: 8,
        message:
          "\(path): the request message is \(length) bytes; this service accepts at most \(router.maxRequestMessageBytes) (--max-message-bytes)"
      )
    }
    guard compressed == 0 else {
      // gRPC: a compressed message without its encoding is INTERNAL; one with an encoding is the
      // gateway server's to decompress and answer.
      guard encoding != nil else {
        return refuse(status: 13, message: "\(path): a compressed message without grpc-encoding")
      }
      return open(to: router.gatewayServer, domain: false)
    }
    guard buffer.readableBytes >= 5 + Int(length) else {
      // A message larger than one stream window cannot arrive while it is held: the gateway's
      // server, which takes it with flow control of its own, routes it.
      if requestEnded || heldBytes >= RelaySettings.initialWindowSize / 2 {
        open(to: router.gatewayServer, domain: false)
      }
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
    // The held bytes are granted back to the client as they leave upstream.
    owedToClient += heldBytes
    releaseHeld()
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
    if case .headers(let first, _)? = held.first, HeaderListCheck.listSize(first) > connection.peerMaxHeaderListSize {
      // Sent, the header list would make the upstream end the connection every call shares.
      connection.reset(stream, code: .cancel)
      phase = .answered
      held.removeAll()
      keepForRetry = false
      failCall(
        status: 8,
        message:
          "the request's header list is \(HeaderListCheck.listSize(first)) bytes; the upstream takes at most \(connection.peerMaxHeaderListSize)"
      )
      client.credit(clientStream, owedToClient)
      owedToClient = 0
      return
    }
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
