/// The side of a relayed call its upstream is on, as the call sees it: a stream of an HTTP/2
/// connection to a domain (`RelayConnection`), or a call of the gateway's own gRPC server in this
/// process (`LocalUpstream`). The call sends its request there and grants back the answer's bytes
/// as they leave; the upstream tells the call what it answers (`RelayedCall.received…`), which
/// request bytes it has taken (`RelayedCall.sent`) and when the stream ends without finishing
/// (`RelayedCall.streamReset`). Used only on the call's event loop.
protocol RelayUpstream: AnyObject {
  /// Sends `item` upstream on `stream`, as soon as the upstream takes it.
  func send(_ item: RelayStream.Outgoing, on stream: RelayStream)
  /// `bytes` of DATA the upstream sent on `stream` have been passed on: it may send as many again.
  func credit(_ stream: RelayStream, _ bytes: Int)
  /// Ends `stream` without finishing it; the call hears nothing more of it.
  func reset(_ stream: RelayStream, code: HTTP2Wire.ErrorCode)
  /// The largest header list the upstream takes.
  var peerMaxHeaderListSize: Int { get }
}

extension RelayConnection: RelayUpstream {}
