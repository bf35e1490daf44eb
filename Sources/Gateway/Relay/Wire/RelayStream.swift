internal import NIOCore
internal import NIOHPACK

/// One HTTP/2 stream of a `RelayConnection`: its flow-control windows both ways, what waits to
/// be sent on it, and the relayed call it belongs to. Used only on its connection's event loop.
final class RelayStream {
  /// What the relay sends on a stream, in order.
  enum Outgoing: Equatable {
    case headers(HPACKHeaders, endStream: Bool)
    case data(ByteBuffer, endStream: Bool)

    var endsStream: Bool {
      switch self {
      case .headers(_, let end), .data(_, let end): end
      }
    }
  }

  let id: UInt32
  /// The call this stream is one end of; nil once the call no longer listens.
  var call: RelayedCall?
  /// The stream's flow-control windows both ways, and the credit not yet granted by a WINDOW_UPDATE.
  var window: FlowControlWindow
  /// Frames waiting for their turn (flow control, or an earlier frame still waiting).
  var queue: [Outgoing] = []
  /// Where the stream is in its life (RFC 9113 §5.1).
  var state: RelayStreamState
  /// The relay has queued its END_STREAM.
  var localEnded: Bool { state.localEnded }
  /// The peer has sent its END_STREAM.
  var remoteEnded: Bool { state.remoteEnded }
  /// The stream's HEADERS have been written (a stream the relay opens is announced at the next
  /// flush; one the peer opened is announced from the start).
  var announced: Bool { state.announced }
  /// When the stream opened, to the relay timers' second.
  let openedAt: NIODeadline

  init(
    id: UInt32, call: RelayedCall?, state: RelayStreamState, sendWindow: Int, receiveWindow: Int,
    openedAt: NIODeadline
  ) {
    self.id = id
    self.call = call
    self.state = state
    self.window = FlowControlWindow(send: sendWindow, receive: receiveWindow)
    self.openedAt = openedAt
  }
}
