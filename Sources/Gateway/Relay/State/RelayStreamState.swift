/// Where one HTTP/2 stream of the relay is in RFC 9113 §5.1's life cycle, as far as the relay
/// keeps it: "reserved" and the closed state's reasons are not kept (a reset stream leaves its
/// connection's table at once). Ends are counted when queued: `halfClosedLocal` means the
/// relay's END_STREAM waits to be written or has been. Tested without sockets
/// (`RelayStreamStateTests`).
enum RelayStreamState: Equatable {
  /// Opened by the relay (client role), its HEADERS not yet written: idle to the peer, who has
  /// never heard of it. `endQueued`: the request's END_STREAM is already queued behind them.
  case idle(endQueued: Bool)
  case open
  /// The relay has queued its END_STREAM; the peer may still send.
  case halfClosedLocal
  /// The peer has sent its END_STREAM; the relay may still send.
  case halfClosedRemote
  case closed

  /// A stream the peer opened: its HEADERS have come.
  static let openedByPeer = RelayStreamState.open
  /// A stream the relay opens: announced at the next flush.
  static let openedByRelay = RelayStreamState.idle(endQueued: false)

  /// Whether the relay has queued its END_STREAM.
  var localEnded: Bool {
    switch self {
    case .idle(let endQueued): endQueued
    case .halfClosedLocal, .closed: true
    case .open, .halfClosedRemote: false
    }
  }

  /// Whether the peer has sent its END_STREAM.
  var remoteEnded: Bool {
    switch self {
    case .halfClosedRemote, .closed: true
    case .idle, .open, .halfClosedLocal: false
    }
  }

  /// Whether the stream's HEADERS have been written (or, opened by the peer, received).
  var announced: Bool {
    if case .idle = self { return false }
    return true
  }

  /// The relay wrote the stream's HEADERS.
  mutating func announce() {
    guard case .idle(let endQueued) = self else { preconditionFailure("stream announced twice (\(self))") }
    self = endQueued ? .halfClosedLocal : .open
  }

  /// The relay queued its END_STREAM.
  mutating func endLocally() {
    switch self {
    case .idle: self = .idle(endQueued: true)
    case .open: self = .halfClosedLocal
    case .halfClosedRemote: self = .closed
    case .halfClosedLocal, .closed: preconditionFailure("END_STREAM queued twice (\(self))")
    }
  }

  /// The peer sent its END_STREAM. The connection checks first that the stream takes frames
  /// (`remoteEnded` false; an idle stream is never the peer's to end).
  mutating func endRemotely() {
    switch self {
    case .open: self = .halfClosedRemote
    case .halfClosedLocal: self = .closed
    case .idle, .halfClosedRemote, .closed: preconditionFailure("END_STREAM from the peer on a \(self) stream")
    }
  }
}
