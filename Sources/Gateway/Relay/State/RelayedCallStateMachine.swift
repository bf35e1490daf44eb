internal import GRPCCore
internal import NIOCore
internal import NIOHPACK

/// The state of one relayed call, without its connections: where it is (routing, relaying,
/// finished), what it holds, and which DATA bytes each side is still owed window for. Every event
/// returns what the call must do — send, grant window, open a stream upstream, answer, retry —
/// and `RelayedCall` does it. Tested without sockets (`RelayedCallStateMachineTests`).
///
/// Flow control is end to end: DATA taken from one side is granted back to it only when it has
/// left on the other side (`sent`), or when it never will (a reset, a refusal, an answer that is
/// complete). Each byte is granted back exactly once.
struct RelayedCallStateMachine {
  typealias Outgoing = RelayStream.Outgoing

  /// Where an upstream stream goes.
  enum Destination: Equatable {
    /// The gateway's own gRPC server (in this process: `LocalUpstream`), which answers or places the call itself.
    case gatewayServer
    case domain(DomainEndpoint)

    var isDomain: Bool {
      if case .domain = self { return true }
      return false
    }
  }

  /// DATA bytes taken from one side and not yet granted back: they wait on the other side.
  struct Owed: Equatable {
    /// Taken from the client, waiting to leave upstream.
    var client = 0
    /// Taken from the upstream, waiting to leave to the client.
    var upstream = 0
  }

  enum State {
    /// Collecting the request until the route is known: what came so far, how many DATA bytes of
    /// it (counted in the loop's routing bytes, granted back only once sent on), and the first
    /// message as far as it came.
    case routing(held: [Outgoing], heldBytes: Int, firstMessage: ByteBuffer?)
    /// A stream upstream is open; frames flow both ways. A unary request to a domain is kept
    /// (`retryCopy`) until the domain answers, to be placed once more through the gateway's
    /// server should the domain refuse the stream.
    case relaying(destination: Destination, retryCopy: [Outgoing]?, retried: Bool, owed: Owed)
    /// The relay is done with the call: the answer is complete (from upstream or from the relay),
    /// or the client went away. Bytes still owed are granted back as they leave; whatever else
    /// arrives is granted back at once.
    case finished(owed: Owed, clientGone: Bool)
    /// Only while an event changes the state in place: the payload's arrays and buffers are then
    /// held by that event alone, so appending to them copies nothing. No event ever finds it.
    case modifying
  }

  /// An event found the placeholder state: a change in place was left half done.
  private static func modifyingSeen() -> Never {
    preconditionFailure("RelayedCallStateMachine: an event found the state being modified")
  }

  /// How the answer to the client has progressed.
  enum Response: Equatable {
    case notStarted
    case started
    case ended
  }

  /// Why the relay answers a call itself instead of relaying it.
  enum Refusal: Equatable {
    /// The first message's length prefix is above the limit (RESOURCE_EXHAUSTED).
    case messageTooLarge(length: Int, limit: Int)
    /// A compressed message on a call that names no `grpc-encoding` (INTERNAL).
    case compressedWithoutEncoding
    /// The loop holds too many request bytes still being routed (RESOURCE_EXHAUSTED).
    case routingBudget(limit: Int)
    /// The large messages the gateway's server holds for the connection, or for the whole process,
    /// would pass their budget (RESOURCE_EXHAUSTED).
    case largeRequestBudget(LargeRequestBudget.Scope)
    /// The first message did not arrive in time (DEADLINE_EXCEEDED).
    case firstMessageTimeout
    /// The upstream takes no header list this large (RESOURCE_EXHAUSTED).
    case headerListTooLarge(size: Int, limit: Int)
    /// No replica of the domain serving the app service the path names is serving (UNAVAILABLE).
    case domainUnavailable
    /// A web call's request is not one its method takes (its body: not one message, too large,
    /// JSON that is not the message): the failure's status.
    case webRequest(ConnectFailure)

    /// The gRPC status the client gets.
    var status: Status.Code {
      switch self {
      case .messageTooLarge, .routingBudget, .largeRequestBudget, .headerListTooLarge: .resourceExhausted
      case .compressedWithoutEncoding: .internalError
      case .firstMessageTimeout: .deadlineExceeded
      case .domainUnavailable: .unavailable
      case .webRequest(let failure): Status.Code(failure.code)
      }
    }
  }

  /// What to do once the request so far has been looked at.
  enum RouteDecision: Equatable {
    /// Not enough of the request yet.
    case wait
    /// Open the stream to the gateway's server.
    case gatewayServer
    /// The first message, of `length` bytes, is too large to hold while routing: the gateway's
    /// server takes it whole, if the large-request budgets have room for it (`LargeRequestBudget`).
    case largeMessage(length: Int)
    /// The first message, whole: find the domain its intent names (or else the gateway's server).
    case scan(ByteBuffer)
    /// Answer the call without relaying it.
    case refuse(Refusal)
  }

  /// What to do with a piece of the request the client sent.
  enum RequestAction: Equatable {
    /// Send it on upstream.
    case forward(Outgoing)
    /// Held while routing (`bytes` more are held now); then act on `decision`.
    case held(bytes: Int, decision: RouteDecision)
    /// Nobody takes it: grant the client its window back.
    case creditClient(Int)
  }

  /// What to do with a piece of the answer the upstream sent.
  enum ResponseAction: Equatable {
    /// Send it to the client (`first`: the answer's first HEADERS). `answered`: the answer is
    /// complete, so the upstream stream, if its request is still being sent, is reset and the
    /// client is granted `creditClient` back.
    case forward(first: Bool, answered: Bool, creditClient: Int)
    /// The client is gone: grant the upstream its window back.
    case creditUpstream(Int)
  }

  /// What to do when the upstream stream ends without an answer.
  enum UpstreamResetAction: Equatable {
    /// Open a stream to the gateway's server with this request (the unary request kept for it).
    case retry([Outgoing])
    /// End the client's call with UNAVAILABLE (`trailersOnly`: nothing of the answer was sent).
    case fail(toDomain: Bool, trailersOnly: Bool)
    /// Nothing to tell the client.
    case none
  }

  private(set) var state: State
  private(set) var requestEnded: Bool
  private(set) var response = Response.notStarted

  /// A call whose client opened its stream with `headers`.
  init(headers: HPACKHeaders, endStream: Bool) {
    state = .routing(held: [.headers(headers, endStream: endStream)], heldBytes: 0, firstMessage: nil)
    requestEnded = endStream
  }

  /// Whether the call still waits for what it is routed by.
  var isRouting: Bool {
    if case .routing = state { return true }
    return false
  }

  // MARK: The request

  /// The client sent `item` (`bytes` of DATA). While routing, DATA keeps its own storage (not
  /// the read buffer), and the decision is taken from the first message as far as it came.
  /// `routedByFirstMessage`: a pass-through method (else the request goes to the gateway's server
  /// once it ended); `encoded`: the call names a `grpc-encoding` other than identity.
  mutating func requestArrived(
    _ item: Outgoing, bytes: Int, routedByFirstMessage: Bool, maxMessageBytes: Int, encoded: Bool
  ) -> RequestAction {
    if item.endsStream { requestEnded = true }
    switch state {
    case .routing(var held, var heldBytes, var firstMessage):
      state = .modifying
      var kept = item
      if case .data(let buffer, let end) = item {
        kept = .data(buffer.compacted(), endStream: end)
        if routedByFirstMessage {
          var more = buffer
          if firstMessage == nil { firstMessage = buffer } else { firstMessage!.writeBuffer(&more) }
        }
      }
      held.append(kept)
      heldBytes += bytes
      state = .routing(held: held, heldBytes: heldBytes, firstMessage: firstMessage)
      let decision =
        routedByFirstMessage
        ? Self.decide(
          firstMessage: firstMessage, requestEnded: requestEnded, heldBytes: heldBytes,
          maxMessageBytes: maxMessageBytes, encoded: encoded)
        : (requestEnded ? .gatewayServer : .wait)
      return .held(bytes: bytes, decision: decision)
    case .relaying(let destination, let retryCopy, let retried, var owed):
      owed.client += bytes
      state = .relaying(destination: destination, retryCopy: retryCopy, retried: retried, owed: owed)
      return .forward(item)
    case .finished:
      return .creditClient(bytes)
    case .modifying:
      Self.modifyingSeen()
    }
  }

  /// The route is known: the stream upstream opens. Returns the request to send on it and the
  /// bytes no longer held while routing (they are now owed to the client until they leave).
  /// `keepForRetry`: keep a copy of the request until the upstream answers. `headers` gives the
  /// request headers as the upstream gets them.
  mutating func open(
    to destination: Destination, keepForRetry: Bool, headers: (HPACKHeaders) -> HPACKHeaders = { $0 }
  ) -> (request: [Outgoing], released: Int) {
    guard case .routing(var held, let heldBytes, _) = state else { return ([], 0) }
    state = .modifying
    if case .headers(let first, let end)? = held.first { held[0] = .headers(headers(first), endStream: end) }
    state = .relaying(
      destination: destination, retryCopy: keepForRetry ? held : nil, retried: false,
      owed: Owed(client: heldBytes, upstream: 0))
    return (held, heldBytes)
  }

  /// The relay answers the call itself (`refusal`) while routing it. Returns the bytes no longer
  /// held while routing, which are also what the client is granted back; nil once the call is
  /// routed (a first-message timeout racing the route).
  mutating func refuse(_ refusal: Refusal) -> Int? {
    answeredByRelay()
  }

  /// The relay answers the call itself while routing it (a refusal, or a web stream that is no
  /// call: a page, a preflight). Returns the bytes no longer held while routing, which are also
  /// what the client is granted back; nil once the call is routed.
  mutating func answeredByRelay() -> Int? {
    guard case .routing(_, let heldBytes, _) = state else { return nil }
    state = .finished(owed: Owed(), clientGone: false)
    response = .ended
    return heldBytes
  }

  /// The upstream takes no header list as large as the one the call would send next (its request
  /// headers, or its trailers): it is not sent, and the relay ends the call itself. Returns the
  /// bytes to grant the client back and whether nothing of the answer was sent yet; nil when
  /// the answer is already complete.
  mutating func headerListRefused() -> (creditClient: Int, trailersOnly: Bool)? {
    endedByRelay()
  }

  /// The relay ends a relayed call itself before its answer is complete (a header list the
  /// upstream would not take, a web call's deadline): the upstream stream is to be reset. Returns
  /// the bytes to grant the client back and whether nothing of the answer was sent yet; nil when
  /// the call is not being relayed or its answer is already complete.
  mutating func endedByRelay() -> (creditClient: Int, trailersOnly: Bool)? {
    guard case .relaying(_, _, _, let owed) = state, response != .ended else { return nil }
    state = .finished(owed: Owed(client: 0, upstream: owed.upstream), clientGone: false)
    let trailersOnly = response == .notStarted
    response = .ended
    return (owed.client, trailersOnly)
  }

  // MARK: The answer

  /// The upstream sent HEADERS (its first: the answer starts; `endStream`: trailers).
  mutating func responseHeadersArrived(endStream: Bool) -> ResponseAction {
    responseArrived(bytes: 0, endStream: endStream)
  }

  /// The upstream sent `bytes` of DATA.
  mutating func responseDataArrived(bytes: Int, endStream: Bool) -> ResponseAction {
    responseArrived(bytes: bytes, endStream: endStream)
  }

  private mutating func responseArrived(bytes: Int, endStream: Bool) -> ResponseAction {
    switch state {
    case .relaying(let destination, _, let retried, var owed):
      let first = response == .notStarted
      owed.upstream += bytes
      if endStream {
        response = .ended
        let creditClient = owed.client
        owed.client = 0
        state = .finished(owed: owed, clientGone: false)
        return .forward(first: first, answered: true, creditClient: creditClient)
      }
      response = .started
      state = .relaying(destination: destination, retryCopy: nil, retried: retried, owed: owed)
      return .forward(first: first, answered: false, creditClient: 0)
    case .finished, .routing:
      return .creditUpstream(bytes)
    case .modifying:
      Self.modifyingSeen()
    }
  }

  // MARK: Flow control

  /// `bytes` of DATA left toward the client: the upstream may send as many again (returned).
  mutating func sentToClient(_ bytes: Int) -> Int {
    transferOwed { owed in
      let granted = min(bytes, owed.upstream)
      owed.upstream -= granted
      return granted
    }
  }

  /// `bytes` of DATA left toward the upstream: the client may send as many again (returned).
  mutating func sentUpstream(_ bytes: Int) -> Int {
    transferOwed { owed in
      let granted = min(bytes, owed.client)
      owed.client -= granted
      return granted
    }
  }

  private mutating func transferOwed(_ body: (inout Owed) -> Int) -> Int {
    switch state {
    case .relaying(let destination, let retryCopy, let retried, var owed):
      let granted = body(&owed)
      state = .relaying(destination: destination, retryCopy: retryCopy, retried: retried, owed: owed)
      return granted
    case .finished(var owed, let clientGone):
      let granted = body(&owed)
      state = .finished(owed: owed, clientGone: clientGone)
      return granted
    case .routing:
      return 0
    case .modifying:
      Self.modifyingSeen()
    }
  }

  // MARK: Resets

  /// The client reset its stream (or its connection went): the upstream stream is to be reset.
  /// Returns the bytes no longer held while routing and what to grant each side back; nil when
  /// the client was already gone.
  mutating func clientReset() -> (released: Int, creditClient: Int, creditUpstream: Int)? {
    switch state {
    case .routing(_, let heldBytes, _):
      // What was held never leaves: the client's connection window gets it back.
      state = .finished(owed: Owed(), clientGone: true)
      return (heldBytes, heldBytes, 0)
    case .relaying(_, _, _, let owed):
      state = .finished(owed: Owed(), clientGone: true)
      return (0, owed.client, owed.upstream)
    case .finished(let owed, let clientGone):
      guard !clientGone else { return nil }
      state = .finished(owed: Owed(), clientGone: true)
      return (0, owed.client, owed.upstream)
    case .modifying:
      Self.modifyingSeen()
    }
  }

  /// The upstream reset its stream, refused it (GOAWAY), or its connection went. Returns what
  /// the client is to be told, and the bytes to grant it back.
  mutating func upstreamReset() -> (action: UpstreamResetAction, creditClient: Int) {
    switch state {
    case .relaying(let destination, let retryCopy, let retried, let owed):
      if response == .notStarted, !retried, let retryCopy {
        // Nothing of the request is owed any more: the copy is sent afresh.
        state = .relaying(
          destination: .gatewayServer, retryCopy: nil, retried: true, owed: Owed(client: 0, upstream: owed.upstream))
        return (.retry(retryCopy), owed.client)
      }
      state = .finished(owed: Owed(client: 0, upstream: owed.upstream), clientGone: false)
      let trailersOnly = response == .notStarted
      response = .ended
      return (.fail(toDomain: destination.isDomain, trailersOnly: trailersOnly), owed.client)
    case .finished(var owed, let clientGone):
      let creditClient = owed.client
      owed.client = 0
      state = .finished(owed: owed, clientGone: clientGone)
      return (.none, creditClient)
    case .routing:
      return (.none, 0)
    case .modifying:
      Self.modifyingSeen()
    }
  }
}
