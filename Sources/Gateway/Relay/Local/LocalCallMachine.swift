internal import GRPCCore

/// One call of the gateway's own server in process, between the relay's event loop and the task
/// that runs it: the request's parts as the relay delivers them and the call reads them, and the
/// answer's bytes the call has written that have not yet left towards the client. Generic over who
/// waits (a continuation in `LocalCallExchange`, a number in its tests), so its transitions are
/// tested without tasks or sockets (`LocalCallMachineTests`).
///
/// The call reads one part at a time and waits when none is there; it writes on until
/// `window` bytes of its answer are in flight, then waits until the relay acknowledges them (as
/// an HTTP/2 peer waits for WINDOW_UPDATE). A client's reset cancels both sides.
struct LocalCallMachine<Reader, Writer> {
  typealias Item = LocalCallItem

  enum Request {
    /// Parts arrive; `reader` waits for the next one.
    case receiving(queued: [Item], reader: Reader?)
    /// No more parts come: after the queued ones, the request ends (`failure`: with that error).
    case ended(queued: [Item], failure: RPCError?)
    case cancelled(RPCError)
  }

  enum Response {
    /// `unacknowledged` bytes of the answer have not left yet; `writer` waits until fewer than
    /// the window have.
    case writing(unacknowledged: Int, writer: Writer?)
    case cancelled(RPCError)
  }

  private(set) var request = Request.receiving(queued: [], reader: nil)
  private(set) var response = Response.writing(unacknowledged: 0, writer: nil)
  /// How many bytes of the answer may be in flight before the call waits.
  let window: Int

  init(window: Int) {
    self.window = window
  }

  // MARK: The request

  enum ReadAction {
    case take(Item)
    /// Nothing yet: the reader waits.
    case wait
    /// The request has ended.
    case end
    case fail(RPCError)
  }

  /// The call asks for the next part as `reader`.
  mutating func read(as reader: Reader) -> ReadAction {
    switch request {
    case .receiving(var queued, let waiting):
      precondition(waiting == nil, "two readers of one request")
      guard !queued.isEmpty else {
        request = .receiving(queued: [], reader: reader)
        return .wait
      }
      let item = queued.removeFirst()
      request = .receiving(queued: queued, reader: nil)
      return .take(item)
    case .ended(var queued, let failure):
      guard !queued.isEmpty else { return failure.map { .fail($0) } ?? .end }
      let item = queued.removeFirst()
      request = .ended(queued: queued, failure: failure)
      return .take(item)
    case .cancelled(let error):
      return .fail(error)
    }
  }

  /// The relay delivers `item`; returns the reader to hand it to, if one waits.
  mutating func deliver(_ item: Item) -> Reader? {
    guard case .receiving(var queued, let reader) = request else { return nil }
    if let reader {
      request = .receiving(queued: [], reader: nil)
      return reader
    }
    queued.append(item)
    request = .receiving(queued: queued, reader: nil)
    return nil
  }

  /// No more parts come (`failure`: the request ends with that error); returns the reader that
  /// waits, to tell it so.
  mutating func endRequest(failure: RPCError? = nil) -> Reader? {
    guard case .receiving(let queued, let reader) = request else { return nil }
    request = .ended(queued: queued, failure: failure)
    return reader
  }

  // MARK: The answer

  enum WriteAction {
    case proceed
    /// Too much is in flight: the writer waits for the relay's acknowledgement.
    case wait
    case fail(RPCError)
  }

  /// The call writes `bytes` more of its answer, as `writer`.
  mutating func write(bytes: Int, as writer: Writer) -> WriteAction {
    switch response {
    case .writing(let unacknowledged, let waiting):
      precondition(waiting == nil, "two writers of one answer")
      let now = unacknowledged + bytes
      guard now > window else {
        response = .writing(unacknowledged: now, writer: nil)
        return .proceed
      }
      response = .writing(unacknowledged: now, writer: writer)
      return .wait
    case .cancelled(let error):
      return .fail(error)
    }
  }

  /// `bytes` of the answer have left towards the client; returns the writer to resume, if it
  /// waited and may write again.
  mutating func acknowledge(_ bytes: Int) -> Writer? {
    guard case .writing(let unacknowledged, let writer) = response else { return nil }
    let now = max(unacknowledged - bytes, 0)
    guard let writer, now <= window else {
      response = .writing(unacknowledged: now, writer: writer)
      return nil
    }
    response = .writing(unacknowledged: now, writer: nil)
    return writer
  }

  // MARK: Both

  /// The client reset the stream (or the server is going away): both sides fail with `error`.
  /// Returns who waits, to tell them.
  mutating func cancel(_ error: RPCError) -> (reader: Reader?, writer: Writer?) {
    var reader: Reader?
    var writer: Writer?
    switch request {
    case .receiving(_, let waiting): reader = waiting
    case .ended, .cancelled: break
    }
    if case .writing(_, let waiting) = response { writer = waiting }
    if case .cancelled = request {} else { request = .cancelled(error) }
    if case .cancelled = response {} else { response = .cancelled(error) }
    return (reader, writer)
  }
}

/// A part of a request to the gateway's own server in process, and the bytes it took on the wire
/// (granted back to the client once the call has read it).
struct LocalCallItem: Sendable {
  var part: RPCRequestPart<LocalCallBytes>
  var wireBytes: Int
}
