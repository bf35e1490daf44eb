internal import NIOCore

/// The life of one relay connection, without its socket: connecting, the handshake, open,
/// draining after a GOAWAY, closing, closed — and whether the peer's socket drains what the relay
/// writes. Every event returns what the connection must do; `RelayConnection` does it. Tested
/// without sockets (`RelayConnectionStateMachineTests`).
struct RelayConnectionStateMachine {
  enum State: Equatable {
    /// The socket is not up yet (an upstream connection still connecting): frames are gathered.
    case connecting
    /// Up; a client's connection waits for its preface and SETTINGS, since `openedAt`.
    case handshaking(openedAt: NIODeadline)
    /// Streams open and close; `idleSince`: since when none is open (nil while one is).
    case open(idleSince: NIODeadline?)
    /// No new streams (GOAWAY sent or received, or retired): closes when the last stream ends.
    case draining
    /// Closes once what was gathered is written.
    case closing
    /// The socket is gone, or never came up.
    case closed
  }

  /// Whether the peer reads what the relay writes.
  enum Output: Equatable {
    case draining
    /// The socket has not drained since `since`. `readPaused`: reading from the peer waits until
    /// it does (a client's connection), and `readPending` whether the channel asked meanwhile.
    case stalled(since: NIODeadline, readPaused: Bool, readPending: Bool)
  }

  /// What the connection must do after a lifecycle event.
  enum Action: Equatable {
    case none
    /// Write what was gathered (the socket is up).
    case flush
    /// Take no new streams (leave the pool); close at once if no stream is open.
    case retire(closeNow: Bool)
    /// Close once what was gathered is written.
    case closeAfterFlush
    /// Every stream on the connection ends: the connection is gone.
    case failStreams
  }

  /// What a deadline check found.
  enum Expiry: Equatable {
    case none
    /// No preface and SETTINGS in time: close at once.
    case handshake
    /// The peer left the relay's output unread too long: close at once.
    case stalled
    /// No stream for too long: GOAWAY(NO_ERROR).
    case idle
  }

  let role: RelayConnection.Role
  private(set) var state: State
  private(set) var output = Output.draining

  init(role: RelayConnection.Role) {
    self.role = role
    state = .connecting
  }

  /// The socket is up, at `now`.
  mutating func becameActive(now: NIODeadline) -> Action {
    guard state == .connecting else { return .none }
    state = role == .server ? .handshaking(openedAt: now) : .open(idleSince: now)
    return .flush
  }

  /// Whether the socket is up and frames may be written.
  var isActive: Bool {
    switch state {
    case .connecting, .closed: false
    case .handshaking, .open, .draining, .closing: true
    }
  }

  var isClosed: Bool { state == .closed }

  /// Whether the connection takes new streams.
  var takesNewStreams: Bool {
    switch state {
    case .connecting, .handshaking, .open: true
    case .draining, .closing, .closed: false
    }
  }

  /// The peer's SETTINGS came: a client's handshake is done.
  mutating func settingsReceived() {
    if case .handshaking(let openedAt) = state { state = .open(idleSince: openedAt) }
  }

  /// Whether a client's connection is past its handshake: HEADERS before the preface's SETTINGS
  /// are a protocol error (RFC 9113 §3.4).
  var handshakeDone: Bool {
    if case .handshaking = state { return false }
    return true
  }

  /// A stream opened.
  mutating func streamOpened() {
    if case .open(.some) = state { state = .open(idleSince: nil) }
  }

  /// The last open stream ended, at `now`.
  mutating func streamsEnded(now: NIODeadline) -> Action {
    switch state {
    case .open: state = .open(idleSince: now)
    case .draining:
      state = .closing
      return .closeAfterFlush
    case .connecting, .handshaking, .closing, .closed: break
    }
    return .none
  }

  /// No new streams from now on (a GOAWAY sent or received, or too many resets upstream).
  mutating func retire(streamsOpen: Bool) -> Action {
    guard takesNewStreams else { return .none }
    if streamsOpen {
      state = .draining
      return .retire(closeNow: false)
    }
    state = .closing
    return .retire(closeNow: true)
  }

  /// A connection error: the GOAWAY is written and the connection closed at once.
  mutating func failed() -> Action {
    switch state {
    case .closed: return .none
    case .connecting, .handshaking, .open, .draining, .closing:
      state = .closing
      return .closeAfterFlush
    }
  }

  /// The socket is gone (or never came up).
  mutating func lost() -> Action {
    guard state != .closed else { return .none }
    state = .closed
    return .failStreams
  }

  // MARK: The peer's socket

  /// The socket's writability changed at `now`. Returns whether a read held back is to be passed on.
  mutating func writabilityChanged(writable: Bool, now: NIODeadline) -> Bool {
    switch (output, writable) {
    case (.draining, false):
      output = .stalled(since: now, readPaused: role == .server, readPending: false)
      return false
    case (.stalled(_, _, let readPending), true):
      output = .draining
      return readPending
    case (.draining, true), (.stalled, false):
      return false
    }
  }

  /// The channel asks to read from the peer: whether to pass it on now (else when it drains).
  mutating func readRequested() -> Bool {
    guard case .stalled(let since, true, _) = output else { return true }
    output = .stalled(since: since, readPaused: true, readPending: true)
    return false
  }

  /// Whether reading from the peer waits until its socket drains.
  var readingPaused: Bool {
    if case .stalled(_, true, _) = output { return true }
    return false
  }

  // MARK: Deadlines

  /// Which of the connection's deadlines passed at `now`: the handshake, a socket that does not
  /// drain, idleness.
  func expired(now: NIODeadline, limits: RelayLimits) -> Expiry {
    if case .handshaking(let openedAt) = state, now - openedAt > TimeAmount(limits.handshakeTimeout) {
      return .handshake
    }
    if case .stalled(let since, _, _) = output, now - since > TimeAmount(limits.stalledWriteTimeout) {
      return .stalled
    }
    if case .open(let idleSince?) = state, now - idleSince > TimeAmount(limits.idleTimeout) {
      return .idle
    }
    return .none
  }
}
