import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// An identity provider's `jwks_uri` on loopback: answers every GET with the document (or status)
/// the test set last, and counts the fetches.
final class JWKSServer: Sendable {
  final class Document: Sendable {
    let state: Mutex<(body: String, status: HTTPResponseStatus, fetches: Int)>
    init(body: String) { state = Mutex((body, .ok, 0)) }
  }

  private let channel: any Channel
  private let document: Document
  let port: Int

  var url: String { "http://127.0.0.1:\(port)/.well-known/jwks.json" }
  var fetches: Int { document.state.withLock { $0.fetches } }

  func serve(_ body: String, status: HTTPResponseStatus = .ok) {
    document.state.withLock {
      $0.body = body
      $0.status = status
    }
  }

  init(body: String) async throws {
    let document = Document(body: body)
    self.document = document
    channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline()
          try channel.pipeline.syncOperations.addHandler(Responder(document: document))
        }
      }
      .bind(host: "127.0.0.1", port: 0).get()
    port = channel.localAddress?.port ?? 0
  }

  func stop() async { try? await channel.close() }

  final class Responder: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let document: Document
    init(document: Document) { self.document = document }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      guard case .end = unwrapInboundIn(data) else { return }
      let (body, status) = document.state.withLock { state in
        state.fetches += 1
        return (state.body, state.status)
      }
      var headers = HTTPHeaders()
      headers.add(name: "content-type", value: "application/json")
      headers.add(name: "content-length", value: "\(body.utf8.count)")
      context.write(
        wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
      context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
      context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
  }
}
