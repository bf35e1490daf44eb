package import Logging
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
internal import ServiceLifecycle

/// Serves `GET /metrics` (Prometheus text format) over plain HTTP/1.1 on its own port, so that
/// scraping never competes with gRPC traffic on the service port. Other paths answer 404.
package final class MetricsHTTPServer: Service, Sendable {
  private let metrics: RPCMetrics
  private let serviceName: String
  private let host: String
  private let port: Int
  private let logger: Logger
  private let bound: PortPromise

  package init(metrics: RPCMetrics, serviceName: String, host: String, port: Int, logger: Logger) {
    self.metrics = metrics
    self.serviceName = serviceName
    self.host = host
    self.port = port
    self.logger = logger
    self.bound = PortPromise()
  }

  /// The port the server listens on, once it does.
  package var listeningPort: Int {
    get async throws { try await bound.value }
  }

  package func run() async throws {
    let server: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
    do {
      server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .bind(host: host, port: port) { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
            return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
              wrappingChannelSynchronously: channel)
          }
        }
    } catch {
      bound.fail(error)
      throw error
    }
    let port = server.channel.localAddress?.port ?? port
    bound.succeed(port)
    logger.info("metrics on http://\(host):\(port)/metrics")
    ProcessOutput.standardOutput("\(serviceName) metrics on http://\(host):\(port)/metrics")
    try await withTaskCancellationOrGracefulShutdownHandler {
      try await withThrowingDiscardingTaskGroup { group in
        try await server.executeThenClose { connections in
          for try await connection in connections {
            group.addTask { await self.serve(connection) }
          }
        }
      }
    } onCancelOrGracefulShutdown: {
      server.channel.close(promise: nil)
    }
  }

  private func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
    do {
      try await connection.executeThenClose { inbound, outbound in
        var head: HTTPRequestHead?
        for try await part in inbound {
          switch part {
          case .head(let request): head = request
          case .body: break
          case .end:
            guard let request = head else { continue }
            try await respond(to: request, outbound)
            if !request.isKeepAlive { return }
            head = nil
          }
        }
      }
    } catch {
      logger.debug("metrics connection ended: \(error)")
    }
  }

  private func respond(
    to request: HTTPRequestHead, _ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
  ) async throws {
    let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
    let (status, contentType, body): (HTTPResponseStatus, String, [UInt8]) =
      switch (request.method, path) {
      case (.GET, "/metrics"), (.HEAD, "/metrics"): (.ok, "text/plain; version=0.0.4; charset=utf-8", metrics.render())
      case (_, "/metrics"): (.methodNotAllowed, "text/plain", Array("use GET\n".utf8))
      default: (.notFound, "text/plain", Array("metrics are at /metrics\n".utf8))
      }
    var headers = HTTPHeaders()
    headers.add(name: "content-type", value: contentType)
    headers.add(name: "content-length", value: "\(body.count)")
    try await outbound.write(.head(HTTPResponseHead(version: request.version, status: status, headers: headers)))
    if request.method != .HEAD { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
    try await outbound.write(.end(nil))
  }
}

/// A port that becomes known once, awaited by any number of readers.
final class PortPromise: Sendable {
  private let promise: EventLoopPromise<Int> = MultiThreadedEventLoopGroup.singleton.any().makePromise()

  func succeed(_ port: Int) { promise.succeed(port) }
  func fail(_ error: any Error) { promise.fail(error) }
  var value: Int {
    get async throws { try await promise.futureResult.get() }
  }

  deinit { promise.fail(CancellationError()) }
}
