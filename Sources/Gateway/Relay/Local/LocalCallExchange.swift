internal import GRPCCore
internal import NIOCore
internal import NIOHPACK
internal import Synchronization

/// What a call of the gateway's own server in process shares between the relay's event loop and
/// the task that runs it (`LocalCallMachine`, behind a lock): the request's parts flow to the task,
/// the answer's pieces flow to the loop, where `LocalUpstream` hands them to the relayed call. The
/// task's reads and writes tell the loop what they took and sent, in order, with one `execute`
/// each.
final class LocalCallExchange: Sendable {
  typealias Machine = LocalCallMachine<
    CheckedContinuation<LocalCallItem?, any Error>, CheckedContinuation<Void, any Error>
  >

  private struct Shared {
    var machine: Machine
    /// The call's cancellation handle, once its task runs.
    var cancellation: ServerContext.RPCCancellationHandle?
    var cancelled = false
  }

  private let shared: Mutex<Shared>
  /// Hands the loop a piece of the answer, or the bytes of the request the call has read.
  private let toLoop: @Sendable (LocalUpstream.Event) -> Void

  init(window: Int, toLoop: @escaping @Sendable (LocalUpstream.Event) -> Void) {
    shared = Mutex(Shared(machine: Machine(window: window)))
    self.toLoop = toLoop
  }

  // MARK: The loop's side

  /// The relay delivers a part of the request.
  func deliver(_ part: RPCRequestPart<LocalCallBytes>, wireBytes: Int) {
    let item = Machine.Item(part: part, wireBytes: wireBytes)
    guard let reader = shared.withLock({ $0.machine.deliver(item) }) else { return }
    reader.resume(returning: item)
  }

  /// No more of the request comes (`failure`: it ends with that error).
  func endRequest(failure: RPCError? = nil) {
    guard let reader = shared.withLock({ $0.machine.endRequest(failure: failure) }) else { return }
    if let failure { reader.resume(throwing: failure) } else { reader.resume(returning: nil) }
  }

  /// `bytes` of the answer have left towards the client.
  func acknowledge(_ bytes: Int) {
    shared.withLock { $0.machine.acknowledge(bytes) }?.resume()
  }

  /// The client is gone: the call is cancelled, its reads and writes fail with `error`.
  func cancel(_ error: RPCError) {
    let (waiting, handle) = shared.withLock { shared in
      shared.cancelled = true
      return (shared.machine.cancel(error), shared.cancellation)
    }
    waiting.reader?.resume(throwing: error)
    waiting.writer?.resume(throwing: error)
    handle?.cancel()
  }

  // MARK: The task's side

  /// The call's task runs with `handle`: a client gone before it started cancels it at once.
  func attach(_ handle: ServerContext.RPCCancellationHandle) {
    let cancelled = shared.withLock { shared in
      shared.cancellation = handle
      return shared.cancelled
    }
    if cancelled { handle.cancel() }
  }

  /// The request's next part; nil once it has ended.
  fileprivate func read() async throws -> RPCRequestPart<LocalCallBytes>? {
    let item: LocalCallItem? = try await withCheckedThrowingContinuation { continuation in
      let action = shared.withLock { $0.machine.read(as: continuation) }
      switch action {
      case .take(let item): continuation.resume(returning: item)
      case .wait: break
      case .end: continuation.resume(returning: nil)
      case .fail(let error): continuation.resume(throwing: error)
      }
    }
    guard let item else { return nil }
    if item.wireBytes > 0 { toLoop(.requestRead(item.wireBytes)) }
    return item.part
  }

  /// Sends a piece of the answer to the loop, then waits while too much of it is in flight.
  fileprivate func write(_ item: RelayStream.Outgoing) async throws {
    var bytes = 0
    if case .data(let data, _) = item { bytes = data.readableBytes }
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      let action = shared.withLock { $0.machine.write(bytes: bytes, as: continuation) }
      switch action {
      case .proceed:
        toLoop(.response(item))
        continuation.resume()
      case .wait:
        toLoop(.response(item))
      case .fail(let error):
        continuation.resume(throwing: error)
      }
    }
  }

  /// The request's parts, for the call's `RPCStream`.
  var requestParts: RPCAsyncSequence<RPCRequestPart<LocalCallBytes>, any Error> {
    RPCAsyncSequence(wrapping: RequestParts(exchange: self))
  }

  /// The writer of the call's answer, for its `RPCStream`.
  var responseWriter: RPCWriter<RPCResponsePart<LocalCallBytes>>.Closable {
    RPCWriter.Closable(wrapping: ResponseWriter(exchange: self))
  }
}

extension LocalCallExchange {
  /// The request's parts as the call reads them.
  struct RequestParts: AsyncSequence {
    typealias Element = RPCRequestPart<LocalCallBytes>
    let exchange: LocalCallExchange

    struct AsyncIterator: AsyncIteratorProtocol {
      let exchange: LocalCallExchange

      mutating func next() async throws -> RPCRequestPart<LocalCallBytes>? {
        try await exchange.read()
      }
    }

    func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(exchange: exchange)
    }
  }

  /// Writes the call's answer as gRPC over HTTP/2 has it: HEADERS with its metadata, a DATA frame
  /// per length-prefixed message, trailers with the status (alone, trailers-only, when nothing
  /// came before).
  final class ResponseWriter: ClosableRPCWriterProtocol {
    typealias Element = RPCResponsePart<LocalCallBytes>
    private let exchange: LocalCallExchange
    /// Whether the answer's HEADERS went; whether its trailers did.
    private let progress = Mutex((headersSent: false, ended: false))

    init(exchange: LocalCallExchange) {
      self.exchange = exchange
    }

    func write(_ element: Element) async throws {
      let items: [RelayStream.Outgoing] = progress.withLock { progress in
        guard !progress.ended else { return [] }
        var items: [RelayStream.Outgoing] = []
        switch element {
        case .metadata(let metadata):
          guard !progress.headersSent else { return [] }
          items.append(.headers(GRPCResponseHeaders.headers(metadata), endStream: false))
        case .message(let message):
          // A message before any metadata: the headers go first, with none.
          if !progress.headersSent { items.append(.headers(GRPCResponseHeaders.headers([:]), endStream: false)) }
          items.append(.data(GRPCResponseHeaders.frame(message.buffer), endStream: false))
        case .status(let status, let metadata):
          progress.ended = true
          items.append(
            .headers(
              GRPCResponseHeaders.trailers(status, metadata, trailersOnly: !progress.headersSent), endStream: true))
        }
        progress.headersSent = true
        return items
      }
      for item in items { try await exchange.write(item) }
    }

    func write(contentsOf elements: some Sequence<Element>) async throws {
      for element in elements { try await write(element) }
    }

    func finish() async {
      // The server writes a status before it finishes; an answer that ends without one is broken.
      await end(RPCError(code: .internalError, message: "the server ended the call without a status"))
    }

    func finish(throwing error: any Error) async {
      await end((error as? RPCError) ?? RPCError(code: .unknown, message: "\(error)"))
    }

    /// Ends the answer with `error`'s status, unless it has ended.
    private func end(_ error: RPCError) async {
      try? await write(.status(Status(code: Status.Code(error.code), message: error.message), error.metadata))
    }
  }
}
