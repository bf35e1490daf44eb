import Testing

@testable import Gateway

/// A relay stream's life cycle (RFC 9113 §5.1) and its flow-control windows (§6.9), without sockets.
@Suite("Gateway relay: a stream's states and windows")
struct RelayStreamStateTests {
  @Test("a stream the peer opens: open, half closed from either side, closed once both ends are done")
  func peerOpened() {
    var request = RelayStreamState.openedByPeer
    #expect(request.announced && !request.localEnded && !request.remoteEnded)
    request.endRemotely()
    #expect(request == .halfClosedRemote && request.remoteEnded && !request.localEnded)
    request.endLocally()
    #expect(request == .closed && request.localEnded && request.remoteEnded)

    var answered = RelayStreamState.openedByPeer
    answered.endLocally()
    #expect(answered == .halfClosedLocal && answered.localEnded && !answered.remoteEnded)
    answered.endRemotely()
    #expect(answered == .closed)
  }

  @Test("a stream the relay opens is idle until its HEADERS go out, an END_STREAM queued behind them kept")
  func relayOpened() {
    var stream = RelayStreamState.openedByRelay
    #expect(!stream.announced && !stream.localEnded && !stream.remoteEnded)
    stream.announce()
    #expect(stream == .open)

    var whole = RelayStreamState.openedByRelay
    whole.endLocally()
    #expect(whole == .idle(endQueued: true) && whole.localEnded && !whole.announced)
    whole.announce()
    #expect(whole == .halfClosedLocal && whole.announced)
  }

  @Test("a window: DATA received beyond it is an error; credit is granted back a quarter at a time")
  func receiveWindow() {
    var window = FlowControlWindow(send: 100, receive: 1000)
    let inWindow = window.received(600)
    let early = window.credit(200)
    let quarter = window.credit(50)  // a quarter of the 1000 granted: one WINDOW_UPDATE
    #expect(inWindow && early == nil && quarter == 250)
    #expect(window.receive == 650 && window.pending == 0)
    let toTheEdge = window.received(650)
    let beyond = window.received(1)
    #expect(toTheEdge && !beyond)
  }

  @Test("a window: the peer's grants add up to at most 2^31-1; a smaller initial window may make it negative")
  func sendWindow() {
    var window = FlowControlWindow(send: 100, receive: 1000)
    window.sent(100)
    #expect(window.send == 0)
    let lowered = window.peerGranted(-50)  // SETTINGS_INITIAL_WINDOW_SIZE lowered
    #expect(lowered && window.send == -50)
    let toTheMaximum = window.peerGranted(FlowControlWindow.maximum + 50)
    let past = window.peerGranted(1)
    #expect(toTheMaximum && !past)
  }
}
