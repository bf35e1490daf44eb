internal import NIOCore
internal import NIOHPACK
internal import NIOHTTP2

/// The upstream end of a relayed call: frames from the domain go to the client's stream as they
/// come. When the upstream stream ends without its trailers (reset, connection lost), the client
/// gets a gRPC status instead of a silent reset.
final class UpstreamStreamRelay: ChannelInboundHandler {
  typealias InboundIn = HTTP2Frame.FramePayload
  typealias OutboundOut = HTTP2Frame.FramePayload

  private var client: ClientStreamRelay?
  private var finished = false

  init(client: ClientStreamRelay) {
    self.client = client
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    switch frame {
    case .headers(let headers):
      if headers.endStream { finished = true }
      client?.fromUpstream(frame, on: context.channel)
    case .data(let data):
      if data.endStream { finished = true }
      client?.fromUpstream(frame, on: context.channel)
    default:
      break
    }
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    client?.upstreamWritabilityChanged(context.channel)
    context.fireChannelWritabilityChanged()
  }

  func channelInactive(context: ChannelHandlerContext) {
    if !finished { client?.upstreamEndedEarly(context.channel) }
    client = nil
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // A stream reset by the domain surfaces here; channelInactive follows and reports it.
    context.close(promise: nil)
  }
}
