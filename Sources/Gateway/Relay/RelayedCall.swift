internal import GRPCCore
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
  private let client: any RelayCallClient
  private let clientStream: RelayStream
  /// Where the request goes: a domain's HTTP/2 connection, or the gateway's own server in process.
  private var upstream: (any RelayUpstream)?
  private var upstreamStream: RelayStream?
  /// Where the upstream stream goes (to open it again elsewhere should its connection go away
  /// before announcing it).
  private var upstreamEndpoint: DomainEndpoint?
  private var machine: RelayedCallStateMachine
  private let path: String
  /// The call names a `grpc-encoding` other than identity.
  private let encoded: Bool
  private let passThrough: (shape: IntentWireScan.Shape, streaming: Bool)?
  /// A web stream that is no call the relay carries (a page, a CORS preflight, a development
  /// token, a refusal): the relay answers it itself, once its request is whole.
  private var webAnswer: WebRequestCollector?
  private var call: RelayMetrics.Call?
  /// The span of the gateway's hop, while the call goes to a domain and tracing is on.
  private var trace: RelayTrace?
  /// A Connect or gRPC-Web call the relay carries as gRPC itself; nil: a gRPC call, or a web
  /// stream the web side answers.
  private var web: WebCallTranslation?
  /// The web request's bytes held while it comes whole, counted in the loop's routing bytes.
  private var webHeld = 0
  /// The web request ended with its HEADERS (an empty body).
  private let webRequestEndedAtOnce: Bool
  /// Which upstream bytes the web answer's pieces still owe, as they leave.
  private var answerLedger = CreditLedger()
  /// A web call's deadline (its `Connect-Timeout-Ms` or `grpc-timeout`, a stream's longest life),
  /// kept by the relay as the Connect protocol asks of a server.
  private var webDeadline: Scheduled<Void>?
  /// An answer the web side gives later (`WebResponder.Reply.later`), while it is being written.
  private var laterAnswer: Task<Void, Never>?
  private var laterAnswerStarted = false
  private var laterAnswerEnded = false
  /// A unary call's deadline as the domain got it, while the replica's outcome is not reported yet
  /// (`DomainDirectory.report`), and whether the domain sent any of its answer.
  private var domainTimeout: Duration?
  private var domainAnswered = false
  /// When the call went to the domain (the time of day: the loop's clock moves only with its timers).
  private var domainOpenedAt = NIODeadline.now()
  /// The large first message's bytes this call holds in the large-request budgets, given back
  /// when the call is gone.
  private var largeRequest: LargeRequestBudget.Reservation?

  /// The client opened `stream` with `headers`: a call the gateway's server answers, or whose
  /// route comes only with the request's end, opens upstream at once; a pass-through call waits
  /// for its first message.
  /// `overHTTP1`: the client's request came on an HTTP/1.1 connection, where only the web
  /// protocols are spoken (a request that is none is answered as the web side answers it).
  init(
    client: any RelayCallClient, stream: RelayStream, state: RelayLoopState, headers: HPACKHeaders, endStream: Bool,
    overHTTP1: Bool = false
  ) {
    self.client = client
    self.clientStream = stream
    self.state = state
    let forWebSide =
      overHTTP1
      || RelayRouter.isForWebSide(
        method: headers.first(name: ":method"), contentType: headers.first(name: "content-type"))
    // A Connect or gRPC-Web call the relay can carry goes on as gRPC; what else is not gRPC, to the web side.
    let web = forWebSide ? state.router.webTranslation(for: headers) : nil
    self.web = web
    // The method's path (a Connect GET's without its query).
    path = web?.path ?? headers.first(name: ":path") ?? ""
    passThrough = RelayRouter.passThrough[path]
    webAnswer = forWebSide && web == nil && state.router.web != nil ? WebRequestCollector(headers: headers) : nil
    webRequestEndedAtOnce = forWebSide && endStream
    encoded = web == nil && (headers.first(name: "grpc-encoding").map { $0 != "identity" } ?? false)
    machine = RelayedCallStateMachine(headers: web?.grpcHeaders ?? headers, endStream: web == nil && endStream)
  }

  /// Starts the call (once the client's stream knows it): a call to a domain's app service goes
  /// to that domain by its path alone. A web call starts once its request is whole.
  func start() {
    if let timeout = web?.enforcedTimeout {
      let call = NIOLoopBound(self, eventLoop: state.eventLoop)
      webDeadline = state.eventLoop.scheduleTask(in: TimeAmount(timeout)) { call.value.webDeadlinePassed() }
    }
    if web != nil || webAnswer != nil {
      if webRequestEndedAtOnce { webRequest(.data(ByteBuffer(), endStream: true), bytes: 0) }
      return
    }
    startByPath()
  }

  private func startByPath() {
    guard passThrough == nil else {
      if machine.requestEnded { open(to: .gatewayServer) }
      return
    }
    switch router.directory.appServiceRoute(path: path) {
    case .domain(let domain): open(to: .domain(domain))
    case .unavailable: refuse(.domainUnavailable)
    case nil: open(to: .gatewayServer)
    }
  }

  private var router: RelayRouter { state.router }

  /// Whether the call still waits for what it is routed by.
  var isRouting: Bool { machine.isRouting }

  // MARK: Events from the connections

  func received(headers: HPACKHeaders, endStream: Bool, on stream: RelayStream, from connection: any RelayUpstream) {
    if stream === clientStream {
      if web != nil || webAnswer != nil { return webRequest(.headers(headers, endStream: endStream), bytes: 0) }
      requestArrived(.headers(headers, endStream: endStream), bytes: 0)
    } else if stream === upstreamStream {
      domainAnswered = true
      let action = machine.responseHeadersArrived(endStream: endStream)
      if endStream, case .forward = action {
        callEnded(status: headers.first(name: "grpc-status"), message: headers.first(name: "grpc-message"))
      }
      responseArrived(.headers(headers, endStream: endStream), action: action, on: stream, from: connection)
    }
  }

  func received(data: ByteBuffer, endStream: Bool, on stream: RelayStream, from connection: any RelayUpstream) {
    if stream === clientStream {
      if web != nil || webAnswer != nil {
        return webRequest(.data(data, endStream: endStream), bytes: data.readableBytes)
      }
      requestArrived(.data(data, endStream: endStream), bytes: data.readableBytes)
    } else if stream === upstreamStream {
      let action = machine.responseDataArrived(bytes: data.readableBytes, endStream: endStream)
      if endStream, case .forward = action { callEnded(status: nil) }
      responseArrived(.data(data, endStream: endStream), action: action, on: stream, from: connection)
    } else {
      connection.credit(stream, data.readableBytes)  // a stream this call has left
    }
  }

  /// The client sent `item` on a connection that is not HTTP/2 (an HTTP/1.1 request's head, body
  /// or end).
  func receivedFromClient(_ item: RelayStream.Outgoing) {
    switch item {
    case .headers(let headers, let end):
      if web != nil || webAnswer != nil { return webRequest(item, bytes: 0) }
      requestArrived(.headers(headers, endStream: end), bytes: 0)
    case .data(let data, _):
      if web != nil || webAnswer != nil { return webRequest(item, bytes: data.readableBytes) }
      requestArrived(item, bytes: data.readableBytes)
    }
  }

  /// The client's connection (not HTTP/2) is gone.
  func clientWentAway() {
    clientReset()
  }

  /// `bytes` of DATA left on `stream`: the side they came from may send as many again.
  func sent(_ bytes: Int, on stream: RelayStream) {
    if stream === clientStream {
      creditUpstream(machine.sentToClient(web == nil ? bytes : answerLedger.sent(bytes)))
    } else if stream === upstreamStream {
      client.credit(clientStream, machine.sentUpstream(bytes))
    }
  }

  /// `stream` ended without finishing: reset by its peer, refused by a GOAWAY, or its connection
  /// is gone.
  func streamReset(_ stream: RelayStream, on connection: any RelayUpstream) {
    if stream === clientStream {
      clientReset()
    } else if stream === upstreamStream {
      upstreamReset()
    }
  }

  /// The first message did not come in time (`RelayLimits.firstMessageTimeout`).
  func firstMessageTimedOut() {
    guard machine.isRouting else { return }
    state.events.record("call_timed_out", code: "FIRST_MESSAGE", detail: path)
    refuse(.firstMessageTimeout)
  }

  // MARK: The request

  /// A piece of a web call's request: held until the request is whole (one message), then
  /// translated and routed as a gRPC call's first message.
  private func webRequest(_ item: RelayStream.Outgoing, bytes: Int) {
    // One message, held here until whole (bounded by the message limit and the loop's routing
    // budget): the client gets its window back at once, so a body larger than a window comes whole.
    client.credit(clientStream, bytes)
    if webAnswer != nil { return webAnswerRequest(item) }
    guard var web else { return }
    let step = web.requestReceived(item)
    self.web = web
    switch step {
    case .ignored:
      break
    case .collecting(let held):
      holdWebRequest(held)
    case .complete(let message):
      releaseWebHeld()
      // Routed as a gRPC call whose request has just come: by its path, or by this first message.
      if passThrough == nil { startByPath() }
      requestArrived(.data(message, endStream: true), bytes: 0)
    case .refused(let failure):
      releaseWebHeld()
      refuse(.webRequest(failure))
    }
  }

  /// A piece of a web stream's request the relay answers itself.
  private func webAnswerRequest(_ item: RelayStream.Outgoing) {
    guard var collector = webAnswer, let responder = router.web?.responder else { return }
    let step = collector.received(item)
    webAnswer = collector
    switch step {
    case .ignored:
      break
    case .collecting(let held):
      holdWebRequest(held)
    case .tooLarge:
      answer(.plain(413, "the request body is larger than \(WebRequestCollector.maxBodyBytes) bytes"))
    case .complete(let request):
      switch responder.reply(to: request) {
      case .answer(let answer):
        self.answer(answer)
      case .call(let kind):
        // A call whose headers the relay did not carry: the web side's refusal of them.
        answer(
          responder.refusal(of: request, kind: kind)
            ?? .plain(503, "\(request.path): the gateway's methods changed meanwhile; try again"))
      case .later(let produce):
        answerLater(produce)
      }
    }
  }

  /// Ends the routing of a web stream whose answer `produce` writes later, from a task: each part
  /// comes back to this loop in order; the task is cancelled when the client's stream goes.
  private func answerLater(_ produce: @escaping @Sendable (WebAnswerWriter) async -> Void) {
    releaseWebHeld()
    webAnswer = nil
    guard machine.answeredByRelay() != nil else { return }
    let call = NIOLoopBound(self, eventLoop: state.eventLoop)
    let eventLoop = state.eventLoop
    let writer = WebAnswerWriter { part in eventLoop.execute { call.value.writeLater(part) } }
    laterAnswer = Task {
      await produce(writer)
      writer.write(.end)
    }
  }

  private func writeLater(_ part: WebAnswerWriter.Part) {
    guard !laterAnswerEnded else { return }
    switch part {
    case .head(let status, let headers):
      guard !laterAnswerStarted else { return }
      laterAnswerStarted = true
      client.send(
        .headers(WebRequestCollector.head(status: status, headers: headers), endStream: false), on: clientStream)
    case .body(let bytes):
      guard laterAnswerStarted, !bytes.isEmpty else { return }
      client.send(.data(ByteBuffer(bytes: bytes), endStream: false), on: clientStream)
    case .end:
      laterAnswerEnded = true
      laterAnswer = nil
      if laterAnswerStarted {
        client.send(.data(ByteBuffer(), endStream: true), on: clientStream)
      } else {
        client.send(.headers(WebRequestCollector.head(status: 500, headers: []), endStream: true), on: clientStream)
      }
    }
  }

  /// Ends a web stream the relay answers itself with `answer`.
  private func answer(_ answer: WebAnswer) {
    releaseWebHeld()
    webAnswer = nil
    guard machine.answeredByRelay() != nil else { return }
    for item in WebRequestCollector.items(of: answer) { client.send(item, on: clientStream) }
  }

  /// `bytes` more of a web request are held until it is whole: counted in the loop's routing budget.
  private func holdWebRequest(_ bytes: Int) {
    webHeld += bytes
    state.routingBytes += bytes
    if state.routingBytes > state.routingBudget { refuse(.routingBudget(limit: state.limits.maxRoutingBytes)) }
  }

  private func releaseWebHeld() {
    state.routingBytes -= webHeld
    webHeld = 0
    web?.dropRequest()
  }

  private func requestArrived(_ item: RelayStream.Outgoing, bytes: Int) {
    let action = machine.requestArrived(
      item, bytes: bytes, routedByFirstMessage: passThrough != nil,
      maxMessageBytes: router.maxRequestMessageBytes, encoded: encoded)
    switch action {
    case .forward(let item):
      guard let upstream, let upstreamStream else { return }
      if case .headers(let trailers, _) = item, HeaderListCheck.listSize(trailers) > upstream.peerMaxHeaderListSize {
        return headerListRefused(size: HeaderListCheck.listSize(trailers), by: upstream, stream: upstreamStream)
      }
      upstream.send(item, on: upstreamStream)
    case .creditClient(let bytes):
      client.credit(clientStream, bytes)  // the answer is complete, or the call was refused
    case .held(let bytes, let decision):
      // Held until routed, and granted back only once sent on: the client can make the call hold
      // no more than the stream's window; all calls of the loop no more than its routing budget.
      state.routingBytes += bytes
      guard state.routingBytes <= state.routingBudget else {
        return refuse(.routingBudget(limit: state.limits.maxRoutingBytes))
      }
      route(decision)
    }
  }

  private func route(_ decision: RelayedCallStateMachine.RouteDecision) {
    switch decision {
    case .wait:
      break
    case .gatewayServer:
      open(to: .gatewayServer)
    case .largeMessage(let length):
      switch LargeRequestBudget.reserve(
        length, connection: client.largeRequests, loop: state.largeRequests, loops: state.loops)
      {
      case .success(let reservation):
        largeRequest = reservation
        open(to: .gatewayServer)
      case .failure(let refused):
        state.events.record(
          "call_refused", code: refused.scope.eventCode, detail: "\(path): a first message of \(length) bytes")
        refuse(.largeRequestBudget(refused.scope))
      }
    case .refuse(let refusal):
      refuse(refusal)
    case .scan(let message):
      if let shape = passThrough?.shape, let found = IntentWireScan.scan(message, shape: shape),
        let domain = router.domain(for: found)
      {
        open(to: .domain(domain), intentClass: found.intentClass)
      } else {
        open(to: .gatewayServer)
      }
    }
  }

  /// Answers the call with the refusal's status without routing it, and ends the client's stream.
  private func refuse(_ refusal: RelayedCallStateMachine.Refusal) {
    releaseWebHeld()
    guard let held = machine.refuse(refusal) else { return }
    state.routingBytes -= held
    failCall(refusal.status, message: message(for: refusal), trailersOnly: true)
    client.credit(clientStream, held)
  }

  private func message(for refusal: RelayedCallStateMachine.Refusal) -> String {
    switch refusal {
    case .messageTooLarge(let length, let limit):
      "\(path): the request message is \(length) bytes; this service accepts at most \(limit) (--max-message-bytes)"
    case .compressedWithoutEncoding:
      "\(path): a compressed message without grpc-encoding"
    case .routingBudget(let limit):
      "the gateway holds too many requests still being routed (\(limit) bytes); try again"
    case .largeRequestBudget(.connection(let limit)):
      "\(path): this connection's large requests in the gateway already reach \(limit) bytes"
        + " (--max-large-request-bytes-per-connection); try again once they end"
    case .largeRequestBudget(.process(let limit)):
      "\(path): the gateway holds as many large requests as it takes (\(limit) bytes, --max-large-request-bytes);"
        + " try again"
    case .firstMessageTimeout:
      "\(path): the request's first message did not arrive within \(state.limits.firstMessageTimeout)"
    case .headerListTooLarge(let size, let limit):
      "the request's header list is \(size) bytes; the upstream takes at most \(limit)"
    case .domainUnavailable:
      DomainDirectory.appServiceUnavailable(path: path)
    case .webRequest(let failure):
      failure.message
    }
  }

  private func open(to destination: RelayedCallStateMachine.Destination, intentClass: String? = nil) {
    let endpoint: DomainEndpoint?
    switch destination {
    case .gatewayServer: endpoint = nil
    case .domain(let domain): endpoint = domain
    }
    // A unary pass-through request is short: keep it until the domain answers, so that a stream the
    // domain refuses (GOAWAY, lost connection) can still be placed through the gateway's server.
    let streaming = passThrough?.streaming ?? false
    var trace: RelayTrace?
    let (request, released) = machine.open(to: destination, keepForRetry: endpoint != nil && machine.requestEnded) {
      guard let endpoint else { return $0 }
      var (headers, timeout) = router.upstreamHeaders($0, streaming: streaming)
      if let timeout {
        domainTimeout = timeout
        domainOpenedAt = .now()
      }
      trace = RelayTrace.start(
        path: path, headers: $0, endpoint: endpoint, intentClass: intentClass, web: web?.kind)
      trace?.inject(into: &headers)
      return headers
    }
    self.trace = trace
    state.routingBytes -= released
    // The gateway's server counts the calls it answers; the relay counts those it takes to a domain.
    guard let endpoint else { return sendToGatewayServer(request) }
    call = state.startedCall(path: path)
    send(request, to: endpoint)
  }

  /// Opens the stream to `endpoint` and sends `request` on it, unless its header list is larger
  /// than the upstream takes: sent, it would make the upstream end the connection every call shares.
  private func send(_ request: [RelayStream.Outgoing], to endpoint: DomainEndpoint) {
    let (connection, stream) = state.pool.openStream(to: endpoint, for: self)
    upstreamEndpoint = endpoint
    send(request, on: stream, of: connection)
  }

  /// Hands `request` to the gateway's own gRPC server, in this process.
  private func sendToGatewayServer(_ request: [RelayStream.Outgoing]) {
    let local = LocalUpstream(
      for: self, transport: router.local, state: state, messageLimit: router.maxRequestMessageBytes)
    upstreamEndpoint = nil
    send(request, on: local.stream, of: local)
  }

  private func send(_ request: [RelayStream.Outgoing], on stream: RelayStream, of upstream: any RelayUpstream) {
    self.upstream = upstream
    upstreamStream = stream
    if case .headers(let first, _)? = request.first, HeaderListCheck.listSize(first) > upstream.peerMaxHeaderListSize {
      return headerListRefused(size: HeaderListCheck.listSize(first), by: upstream, stream: stream)
    }
    for item in request { upstream.send(item, on: stream) }
  }

  /// A header list the upstream would not take: sent, it would make the upstream end the
  /// connection every call shares. The stream is reset instead and the relay ends the call.
  private func headerListRefused(size: Int, by connection: any RelayUpstream, stream: RelayStream) {
    connection.reset(stream, code: .cancel)
    guard let (creditClient, trailersOnly) = machine.headerListRefused() else { return }
    state.events.record(
      "call_refused", code: "HEADER_LIST",
      detail: "\(size) bytes for an upstream taking \(connection.peerMaxHeaderListSize)")
    failCall(
      .resourceExhausted,
      message: message(for: .headerListTooLarge(size: size, limit: connection.peerMaxHeaderListSize)),
      trailersOnly: trailersOnly)
    client.credit(clientStream, creditClient)
  }

  /// The upstream connection went away (GOAWAY) before `stream` was announced on it: the upstream
  /// never saw it, so what waited on it is sent on a stream to the same endpoint elsewhere.
  func neverAnnounced(_ stream: RelayStream, waiting: [RelayStream.Outgoing]) {
    guard stream === upstreamStream, let upstreamEndpoint else { return }
    let (connection, reopened) = state.pool.openStream(to: upstreamEndpoint, for: self)
    upstream = connection
    upstreamStream = reopened
    for item in waiting { connection.send(item, on: reopened) }
  }

  // MARK: The answer

  private func responseArrived(
    _ item: RelayStream.Outgoing, action: RelayedCallStateMachine.ResponseAction, on stream: RelayStream,
    from connection: any RelayUpstream
  ) {
    switch action {
    case .creditUpstream(let bytes):
      connection.credit(stream, bytes)
    case .forward(let first, let answered, let creditClient):
      if answered {
        // The answer is complete: a request still being sent is of no more use upstream.
        if !(stream.localEnded && stream.queue.isEmpty) { connection.reset(stream, code: .cancel) }
        client.credit(clientStream, creditClient)
      }
      if web != nil { return webAnswer(item, first: first) }
      if first, case .headers(let headers, let end) = item {
        client.send(.headers(RelayRouter.clientHeaders(headers), endStream: end), on: clientStream)
      } else {
        client.send(item, on: clientStream)
      }
    }
  }

  /// A piece of the upstream's gRPC answer, written as the web call's protocol.
  private func webAnswer(_ item: RelayStream.Outgoing, first: Bool) {
    guard var web else { return }
    let output: WebCallTranslation.Output
    switch item {
    case .headers(let headers, let end):
      output = web.responseHeaders(first ? RelayRouter.clientHeaders(headers) : headers, endStream: end)
    case .data(let data, let end):
      output = web.responseData(data, endStream: end)
    }
    self.web = web
    if output.absorbed > 0 { creditUpstream(machine.sentToClient(output.absorbed)) }
    sendToClient(output.pieces)
  }

  /// The web call's deadline passed before its answer was complete: it ends DEADLINE_EXCEEDED,
  /// its upstream stream reset.
  private func webDeadlinePassed() {
    webDeadline = nil
    guard let web, !web.isEnded else { return }
    let message = "\(path): the call's deadline passed (\(web.deadlineSource))"
    if machine.isRouting { return refuse(.webRequest(ConnectFailure(code: .deadlineExceeded, message: message))) }
    if let upstream, let upstreamStream { upstream.reset(upstreamStream, code: .cancel) }
    guard let (creditClient, trailersOnly) = machine.endedByRelay() else { return }
    failCall(.deadlineExceeded, message: message, trailersOnly: trailersOnly)
    client.credit(clientStream, creditClient)
  }

  /// Sends a web call's pieces; what they owe the upstream is granted back as they leave.
  private func sendToClient(_ pieces: [WebCallTranslation.Piece]) {
    if pieces.last?.item.endsStream == true {
      webDeadline?.cancel()
      webDeadline = nil
    }
    for piece in pieces {
      var carried = 0
      if case .data(let data, _) = piece.item { carried = data.readableBytes }
      let now = answerLedger.record(carried: carried, source: piece.sourceBytes)
      if now > 0 { creditUpstream(machine.sentToClient(now)) }
      client.send(piece.item, on: clientStream)
    }
  }

  /// Ends the client's stream with a gRPC status: trailers-only if nothing was sent yet.
  private func failCall(_ code: Status.Code, message: String, trailersOnly: Bool) {
    let status = code.rawValue
    if webAnswer != nil {
      // Not a gRPC stream: a plain answer with the HTTP status of the code.
      webAnswer = nil
      for item in WebRequestCollector.items(
        of: .plain(ConnectCode.httpStatus(RPCError.Code(code) ?? .unknown), message))
      {
        client.send(item, on: clientStream)
      }
      return
    }
    if var web {
      let pieces = web.fail(code, message: message)
      self.web = web
      callEnded(status: "\(status)", message: message)
      return sendToClient(pieces)
    }
    var headers = HPACKHeaders()
    if trailersOnly {
      headers.add(name: ":status", value: "200")
      headers.add(name: "content-type", value: "application/grpc")
    }
    headers.add(name: "grpc-status", value: "\(status)")
    headers.add(name: "grpc-message", value: message)
    callEnded(status: "\(status)", message: message)
    client.send(.headers(headers, endStream: true), on: clientStream)
  }

  // MARK: Resets

  private func clientReset() {
    laterAnswer?.cancel()
    laterAnswer = nil
    laterAnswerEnded = true
    releaseWebHeld()
    largeRequest?.release()
    largeRequest = nil
    webDeadline?.cancel()
    webDeadline = nil
    guard let (released, creditClient, creditUpstream) = machine.clientReset() else { return }
    state.routingBytes -= released
    if let upstream, let upstreamStream { upstream.reset(upstreamStream, code: .cancel) }
    // Given up by the caller: reported whether or not the call is counted (metrics, tracing).
    reportOutcome(status: "\(Status.Code.cancelled.rawValue)")
    if call != nil || trace != nil { callEnded(status: "\(Status.Code.cancelled.rawValue)") }
    client.credit(clientStream, creditClient)
    self.creditUpstream(creditUpstream)
  }

  private func upstreamReset() {
    let (action, creditClient) = machine.upstreamReset()
    client.credit(clientStream, creditClient)
    switch action {
    case .none:
      break
    case .retry(let request):
      // Sends the kept request to the gateway's server, which places it again or says why not
      // (its span a child of this one: the kept headers carry it).
      state.metrics.abandoned(call)
      call = nil
      trace?.end(status: nil, note: "the domain refused the stream: placed again by the gateway's server")
      trace = nil
      sendToGatewayServer(request)
    case .fail(let toDomain, let trailersOnly):
      failCall(
        .unavailable, message: toDomain ? "the domain reset the stream" : "the gateway's server reset the stream",
        trailersOnly: trailersOnly)
    }
  }

  /// The call ended with `status` (its `grpc-status`; nil when none came): counted, its span ended.
  private func callEnded(status: String?, message: String? = nil) {
    reportOutcome(status: status)
    state.metrics.finished(call, status: status)
    call = nil
    trace?.end(status: status, message: message)
    trace = nil
  }

  /// Tells the directory whether the replica answered this unary call in time: a deadline passed
  /// or the domain unreachable (DEADLINE_EXCEEDED, UNAVAILABLE), or the caller gave up, at least
  /// half its deadline after the call went to the domain, before the domain sent a byte — a silent
  /// replica's only sign (the relay sees the call's start later than the caller on a loaded loop).
  private func reportOutcome(status: String?) {
    guard let endpoint = upstreamEndpoint, let timeout = domainTimeout else { return }
    domainTimeout = nil
    let failed: Bool
    switch status {
    case "\(Status.Code.deadlineExceeded.rawValue)", "\(Status.Code.unavailable.rawValue)":
      failed = true
    case "\(Status.Code.cancelled.rawValue)":
      let lived = NIODeadline.now() - domainOpenedAt
      guard !domainAnswered, lived.nanoseconds * 2 >= TimeAmount(timeout).nanoseconds else { return }
      failed = true
    case nil:
      return
    default:
      failed = false
    }
    router.directory.report(endpoint, failed: failed)
  }

  private func creditUpstream(_ bytes: Int) {
    if let upstream, let upstreamStream { upstream.credit(upstreamStream, bytes) }
  }
}
