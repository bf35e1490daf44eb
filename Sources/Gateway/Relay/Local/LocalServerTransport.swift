internal import GRPCCore
internal import NIOCore

/// The transport of the gateway's own gRPC server behind the relay: its streams come from the
/// relay's calls in this process (`LocalUpstream`), not from a socket. The server runs each as a
/// task, with the services and interceptors it has on any transport; a call whose client resets
/// its stream, or whose deadline passes, has its task cancelled.
///
/// Graceful shutdown takes no new streams (they are answered UNAVAILABLE) and lets the running
/// ones finish; the relay, which stops first, has drained its clients' calls by then.
final class LocalServerTransport: ServerTransport {
  typealias Bytes = LocalCallBytes

  private typealias Accepted = (stream: RPCStream<Inbound, Outbound>, exchange: LocalCallExchange)
  private let accepted: AsyncStream<Accepted>
  private let continuation: AsyncStream<Accepted>.Continuation

  init() {
    (accepted, continuation) = AsyncStream.makeStream()
  }

  @concurrent
  func listen(
    streamHandler:
      @escaping @concurrent @Sendable (_ stream: RPCStream<Inbound, Outbound>, _ context: ServerContext) async -> Void
  ) async throws {
    await withDiscardingTaskGroup { group in
      for await (stream, exchange) in accepted {
        group.addTask {
          await withServerContextRPCCancellationHandle { handle in
            exchange.attach(handle)
            let context = ServerContext(
              descriptor: stream.descriptor, remotePeer: "in-process:relay", localPeer: "in-process:gateway",
              cancellation: handle)
            // A call whose client left (or whose deadline passed) is cancelled, so that what it
            // waits on — a domain's answer — is let go at once rather than at its own deadline.
            await withTaskGroup(of: Void.self) { call in
              call.addTask { await streamHandler(stream, context) }
              call.addTask { try? await handle.cancelled }
              await call.next()
              call.cancelAll()
            }
          }
        }
      }
    }
  }

  /// A transport that takes no streams: a relay without the gateway's server behind it (unit
  /// tests, the fuzzer) answers what it would take UNAVAILABLE.
  static var closed: LocalServerTransport {
    let transport = LocalServerTransport()
    transport.beginGracefulShutdown()
    return transport
  }

  func beginGracefulShutdown() {
    continuation.finish()
  }

  /// Hands the server a call's stream; false once the server takes no more.
  func accept(_ stream: RPCStream<Inbound, Outbound>, exchange: LocalCallExchange) -> Bool {
    if case .terminated = continuation.yield((stream, exchange)) { return false }
    return true
  }

  /// The method a `:path` names ("/package.Service/Method"); nil when it is no such path.
  static func descriptor(path: String) -> MethodDescriptor? {
    guard path.first == "/" else { return nil }
    let parts = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
    return MethodDescriptor(fullyQualifiedService: String(parts[0]), method: String(parts[1]))
  }

  /// `path` as a status message may carry it as it is: visible ASCII, no '%'.
  static func printable(_ path: String) -> String {
    String(
      String.UnicodeScalarView(
        path.unicodeScalars.drop { $0 == "/" }.map { $0.value >= 0x20 && $0.value < 0x7F && $0 != "%" ? $0 : "?" }))
  }
}
