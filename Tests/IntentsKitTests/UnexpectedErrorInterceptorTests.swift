import GRPCCore
import Logging
import NIOCore
@testable import ServiceKit
import Synchronization
import Testing

@Suite("Unexpected errors")
struct UnexpectedErrorInterceptorTests {
  struct StoreFailure: Error {}

  /// Keeps what is logged (also used by `IntentContextTests`).
  final class Captured: Sendable {
    let lines = Mutex<[(Logger.Level, String, Logger.Metadata)]>([])
  }

  struct CapturingHandler: LogHandler {
    let captured: Captured
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
      // The logger's metadata with the call's on top, as a log line shows them.
      let all = metadata.merging(event.metadata ?? [:]) { $1 }
      captured.lines.withLock { $0.append((event.level, "\(event.message)", all)) }
    }
  }

  static let context = ServerContext(
    descriptor: .init(fullyQualifiedService: "intentmesh.messaging.v1.UnicornChatApp", method: "GetAccount"),
    remotePeer: "test", localPeer: "test", cancellation: .init())

  /// Runs the interceptor over a handler that fails with `error` (before answering, or while
  /// writing its answer) inside a request id, and returns what the client gets.
  static func outcome(of error: any Error, whileWriting: Bool, logger: Logger) async -> (any Error)? {
    let interceptor = UnexpectedErrorInterceptor(logger: logger)
    return await RequestID.$current.withValue("req-7") {
      do {
        let response: StreamingServerResponse<String> = try await interceptor.intercept(
          request: StreamingServerRequest<String>(
            metadata: [:],
            messages: RPCAsyncSequence<String, any Error>(
              wrapping: AsyncThrowingStream<String, any Error> { $0.finish() })),
          context: context
        ) { _, _ in
          guard whileWriting else { throw error }
          return StreamingServerResponse { _ in throw error }
        }
        guard case .success(let contents) = response.accepted else { return nil }
        _ = try await contents.producer(RPCWriter(wrapping: DiscardingWriter()))
        return nil
      } catch {
        return error
      }
    }
  }

  struct DiscardingWriter: RPCWriterProtocol {
    func write(_ element: String) async throws {}
    func write(contentsOf elements: some Sequence<String>) async throws {}
  }

  @Test("an error without a status is answered INTERNAL with the request id, and logged with the cause")
  func internalWithRequestID() async {
    for whileWriting in [false, true] {
      let captured = Captured()
      let logger = Logger(label: "test") { _ in CapturingHandler(captured: captured) }
      let error = await Self.outcome(of: StoreFailure(), whileWriting: whileWriting, logger: logger)
      let answered = error as? RPCError
      #expect(answered?.code == .internalError)
      #expect(answered?.message == "GetAccount failed inside the service (request id req-7)")
      #expect(answered?.message.contains("StoreFailure") == false)
      let lines = captured.lines.withLock { $0 }
      #expect(lines.count == 1)
      #expect(lines.first?.0 == .error)
      #expect(lines.first?.2["request-id"] == "req-7")
      let cause = lines.first.map { "\($0.2["error"] ?? "")" } ?? ""
      #expect(cause.contains("StoreFailure"))
    }
  }

  @Test("an error with a status passes as it is; a cancellation is CANCELLED; neither is logged")
  func statusesPass() async {
    let captured = Captured()
    let logger = Logger(label: "test") { _ in CapturingHandler(captured: captured) }
    for whileWriting in [false, true] {
      let notFound = await Self.outcome(
        of: RPCError(code: .notFound, message: "no account"), whileWriting: whileWriting, logger: logger)
      #expect((notFound as? RPCError)?.code == .notFound)
      #expect((notFound as? RPCError)?.message == "no account")
      let cancelled = await Self.outcome(of: CancellationError(), whileWriting: whileWriting, logger: logger)
      #expect((cancelled as? RPCError)?.code == .cancelled)
    }
    #expect(captured.lines.withLock { $0.isEmpty })
  }

  @Test("a write to a stream the client closed is CANCELLED and logged at debug only (a Watch at shutdown)")
  func closedStreamIsACancellation() async {
    let captured = Captured()
    let logger = Logger(label: "test") { _ in CapturingHandler(captured: captured) }
    let closed = await Self.outcome(of: ChannelError.ioOnClosedChannel, whileWriting: true, logger: logger)
    #expect((closed as? RPCError)?.code == .cancelled)
    #expect(captured.lines.withLock { $0.map(\.0) } == [.debug])
  }
}
