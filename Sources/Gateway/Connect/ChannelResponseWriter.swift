internal import NIOCore
internal import NIOHTTP1

/// Writes a web answer to the channel of its request (an HTTP/1.1 connection, or an HTTP/2 stream
/// seen through NIO's HTTP/1 codec), from any task: each part is written on the channel's loop,
/// and returns once written, so a peer that does not read slows the writer down.
struct ChannelResponseWriter: WebResponseWriter {
  let context: NIOLoopBound<ChannelHandlerContext>
  let version: HTTPVersion
  /// Called on the loop once the answer has ended.
  let ended: NIOLoopBound<() -> Void>

  private var eventLoop: any EventLoop { context.eventLoop }

  func head(status: Int, headers: [(String, String)]) async throws {
    let context = self.context
    let version = self.version
    try await eventLoop.flatSubmit {
      let head = HTTPResponseHead(
        version: version, status: HTTPResponseStatus(statusCode: status), headers: HTTPHeaders(headers))
      return context.value.writeAndFlush(NIOAny(HTTPServerResponsePart.head(head)))
    }.get()
  }

  func body(_ bytes: [UInt8]) async throws {
    let context = self.context
    try await eventLoop.flatSubmit {
      let buffer = context.value.channel.allocator.buffer(bytes: bytes)
      return context.value.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))))
    }.get()
  }

  func end() async throws {
    let context = self.context
    let ended = self.ended
    try await eventLoop.flatSubmit {
      defer { ended.value() }
      return context.value.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
    }.get()
  }
}
