/// The side of a relayed call its client is on, as the call sees it: an HTTP/2 connection's stream
/// (`RelayConnection`), or an HTTP/1.1 connection's request (`RelayHTTP1Connection`). The call
/// sends its answer there and says which of the client's bytes it has passed on; the connection
/// tells the call what the client sends (`RelayedCall.received…`) and which answer bytes have left
/// (`RelayedCall.sent`). Used only on the connection's event loop.
protocol RelayCallClient: AnyObject {
  /// Sends `item` to the client on `stream`, as soon as the connection allows.
  func send(_ item: RelayStream.Outgoing, on stream: RelayStream)
  /// `bytes` of DATA the client sent on `stream` have been passed on: it may send as many again.
  func credit(_ stream: RelayStream, _ bytes: Int)
  /// The large first messages the gateway's server holds for this client's calls.
  var largeRequests: LargeRequestBudget { get }
}

extension RelayConnection: RelayCallClient {}
