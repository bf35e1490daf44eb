/// One flow-control window pair of RFC 9113 §6.9, a stream's or a connection's: how many DATA
/// bytes the peer still lets the relay send, how many the relay still lets the peer send, and
/// the bytes passed on that the peer may send again but that no WINDOW_UPDATE has granted yet
/// (granted in batches: one WINDOW_UPDATE per quarter of the window). Tested without sockets
/// (`FlowControlWindowTests`).
struct FlowControlWindow: Equatable {
  /// The largest window RFC 9113 allows.
  static let maximum = (1 << 31) - 1

  /// How many DATA bytes the peer still lets the relay send.
  private(set) var send: Int
  /// How many DATA bytes the relay still lets the peer send.
  private(set) var receive: Int
  /// Passed on, not yet granted back to the peer.
  private(set) var pending = 0
  /// What the relay grants the peer in all (the window it advertised): a WINDOW_UPDATE goes out
  /// once a quarter of it is pending.
  let granted: Int

  init(send: Int, receive: Int) {
    self.send = send
    self.receive = receive
    self.granted = receive
  }

  /// The peer sent `bytes` of DATA; false: more than its window allowed.
  mutating func received(_ bytes: Int) -> Bool {
    receive -= bytes
    return receive >= 0
  }

  /// `bytes` received were passed on: the WINDOW_UPDATE increment to send now, if one is due.
  mutating func credit(_ bytes: Int) -> Int? {
    pending += bytes
    guard pending >= granted / 4 else { return nil }
    defer {
      receive += pending
      pending = 0
    }
    return pending
  }

  /// The relay sent `bytes` of DATA.
  mutating func sent(_ bytes: Int) {
    precondition(bytes <= send, "DATA beyond the peer's window")
    send -= bytes
  }

  /// The peer's WINDOW_UPDATE (or a change of its initial window size, which may be negative);
  /// false: the window would pass 2^31-1, a flow-control error.
  mutating func peerGranted(_ increment: Int) -> Bool {
    send += increment
    return send <= Self.maximum
  }
}
