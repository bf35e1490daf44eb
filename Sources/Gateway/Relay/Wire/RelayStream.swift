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
  /// How many DATA bytes the peer still lets the relay send on this stream.
  var sendWindow: Int
  /// How many DATA bytes the relay still lets the peer send on this stream.
  var receiveWindow: Int
  /// Bytes the call has passed on and that the peer may send again, not yet granted by a
  /// WINDOW_UPDATE.
  var creditPending = 0
  /// Frames waiting for their turn (flow control, or an earlier frame still waiting).
  var queue: [Outgoing] = []
  /// The relay has queued its END_STREAM.
  var localEnded = false
  /// The peer has sent its END_STREAM.
  var remoteEnded = false
  /// The stream's HEADERS have been written (a stream the relay opens is announced at the next
  /// flush; one the peer opened is announced from the start).
  var announced = true
  /// When the stream opened, to the relay timers' second.
  let openedAt: NIODeadline

  init(id: UInt32, call: RelayedCall?, sendWindow: Int, receiveWindow: Int, openedAt: NIODeadline) {
    self.id = id
    self.call = call
    self.sendWindow = sendWindow
    self.receiveWindow = receiveWindow
    self.openedAt = openedAt
  }
}
