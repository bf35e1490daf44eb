import IntentMeshProtos
import SwiftProtobuf
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
@testable import IntentsKit
import IntentsKitTesting
@testable import ServiceKit
import Testing

/// A gRPC server on a loopback port inside the test process, that a test can stop and start again
/// on the same port (to kill a domain mid-test).
final class SocketServer: Sendable {
  let server: GRPCServer<HTTP2ServerTransport.Posix>
  let task: Task<Void, any Error>
  let port: Int

  static func start(services: [any RegistrableRPCService], port: Int = 0) async throws -> SocketServer {
    var config = HTTP2ServerTransport.Posix.Config.defaults
    // How a request ends is handled as on every IntentMesh service (the rest stays grpc-swift's
    // defaults: the relay tests are tuned to its 100 concurrent streams).
    config.channelDebuggingCallbacks.onAcceptHTTP2Stream = ServiceTransport.acceptStream(
      messageLimit: config.rpc.maxRequestPayloadSize)
    let transport = HTTP2ServerTransport.Posix(
      address: .ipv4(host: "127.0.0.1", port: port), transportSecurity: .plaintext, config: config)
    let server = GRPCServer(
      transport: transport, services: services, interceptors: try await TestIdentity.serverInterceptors())
    let task = Task { try await server.serve() }
    guard let address = try await server.listeningAddress, let ipv4 = address.ipv4 else {
      task.cancel()
      throw CancellationError()
    }
    return SocketServer(server: server, task: task, port: ipv4.port)
  }

  private init(server: GRPCServer<HTTP2ServerTransport.Posix>, task: Task<Void, any Error>, port: Int) {
    self.server = server
    self.task = task
    self.port = port
  }

  /// Stops as a killed process would: connections drop, nothing drains.
  /// - Parameter goAway: send GOAWAY first, so that streams a peer opens in the meantime are
  ///   refused by HTTP/2, and give streams already under way a second to be accepted. Without it,
  ///   grpc-swift's server can trap on a stream that arrives while it is cancelled ("Deinited
  ///   NIOAsyncWriter without calling finish()", apple/swift-nio#3481), taking the test process with
  ///   it (a killed process has no such window: the kernel closes its sockets). Without it, streams
  ///   in flight are reset rather than finished.
  func kill(goAway: Bool = true) async {
    // Streams the peer opened before the GOAWAY reached it are accepted (and then cancelled with
    // the rest) rather than left unread when the serving task is cancelled, which traps: give them
    // up to a second, less when the server drains by itself.
    if goAway { _ = await drain(within: .seconds(1)) }
    task.cancel()
    _ = try? await task.value
  }

  /// Stops as a service does at SIGTERM: GOAWAY, then the streams under way finish. A stream still
  /// open after `limit` (one its peer never ended, or whose end never reached the handler) is a
  /// failure of the test that left it: recorded, and the server is then cancelled rather than
  /// waited for, so the run goes on.
  func stop(within limit: Duration = .seconds(15)) async {
    if !(await drain(within: limit)) {
      Issue.record("the server on port \(port) still had streams open \(limit) after GOAWAY; cancelled it")
    }
  }

  /// GOAWAY, then waits up to `limit` for the server to drain; cancels it if it has not. Whether it
  /// drained in time.
  private func drain(within limit: Duration) async -> Bool {
    server.beginGracefulShutdown()
    let task = self.task
    return await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        _ = try? await task.value
        return true
      }
      group.addTask {
        try? await Task.sleep(for: limit)
        return false
      }
      let drained = await group.next() ?? false
      if !drained { task.cancel() }
      group.cancelAll()
      return drained
    }
  }
}
