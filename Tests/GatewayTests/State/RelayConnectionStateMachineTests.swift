import NIOCore
import Testing

@testable import Gateway

/// A relay connection's life without a socket: each event, the state it leads to and what the
/// connection must do.
@Suite("Gateway relay: a connection's state machine")
struct RelayConnectionStateMachineTests {
  typealias Machine = RelayConnectionStateMachine
  static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

  static func at(_ seconds: Int64) -> NIODeadline { start + .seconds(seconds) }

  @Test("a client's connection: handshake, open and idle, a stream, GOAWAY while it runs, closed when it ends")
  func serverLife() {
    var machine = Machine(role: .server)
    #expect(!machine.isActive && machine.takesNewStreams)
    #expect(machine.becameActive(now: Self.start) == .flush)
    #expect(machine.becameActive(now: Self.at(1)) == .none)
    #expect(machine.state == .handshaking(openedAt: Self.start))
    #expect(!machine.handshakeDone)
    machine.settingsReceived()
    #expect(machine.state == .open(idleSince: Self.start))
    machine.streamOpened()
    #expect(machine.state == .open(idleSince: nil))
    #expect(machine.retire(streamsOpen: true) == .retire(closeNow: false))
    #expect(machine.state == .draining && !machine.takesNewStreams)
    #expect(machine.retire(streamsOpen: true) == .none)
    #expect(machine.streamsEnded(now: Self.at(2)) == .closeAfterFlush)
    #expect(machine.state == .closing && machine.isActive)
    #expect(machine.lost() == .failStreams)
    #expect(machine.lost() == .none)
    #expect(machine.isClosed && !machine.isActive)
  }

  @Test("an upstream connection is open as soon as it connects; retired with no stream it closes at once")
  func clientLife() {
    var machine = Machine(role: .client)
    #expect(machine.becameActive(now: Self.start) == .flush)
    #expect(machine.handshakeDone)
    #expect(machine.state == .open(idleSince: Self.start))
    #expect(machine.retire(streamsOpen: false) == .retire(closeNow: true))
    #expect(machine.state == .closing)
  }

  @Test("a connection error closes from any state but closed; a connection that never came up only ends its streams")
  func failures() {
    var machine = Machine(role: .client)
    #expect(machine.lost() == .failStreams)
    #expect(machine.failed() == .none)
    var open = Machine(role: .server)
    _ = open.becameActive(now: Self.start)
    #expect(open.failed() == .closeAfterFlush)
    #expect(!open.takesNewStreams)
    #expect(open.retire(streamsOpen: false) == .none)
  }

  @Test("idle is counted from the last stream's end, only while open and with no stream")
  func idle() {
    var limits = RelayLimits()
    limits.idleTimeout = .seconds(10)
    var machine = Machine(role: .server)
    _ = machine.becameActive(now: Self.start)
    machine.settingsReceived()
    #expect(machine.expired(now: Self.at(11), limits: limits) == .idle)
    machine.streamOpened()
    #expect(machine.expired(now: Self.at(100), limits: limits) == .none)
    #expect(machine.streamsEnded(now: Self.at(100)) == .none)
    #expect(machine.expired(now: Self.at(109), limits: limits) == .none)
    #expect(machine.expired(now: Self.at(111), limits: limits) == .idle)
  }

  @Test("the handshake deadline runs from when the socket came up until the client's SETTINGS")
  func handshakeDeadline() {
    var limits = RelayLimits()
    limits.handshakeTimeout = .seconds(10)
    var machine = Machine(role: .server)
    #expect(machine.expired(now: Self.at(100), limits: limits) == .none)  // not up yet
    _ = machine.becameActive(now: Self.start)
    #expect(machine.expired(now: Self.at(9), limits: limits) == .none)
    #expect(machine.expired(now: Self.at(11), limits: limits) == .handshake)
    machine.settingsReceived()
    #expect(machine.expired(now: Self.at(11), limits: limits) == .none)
  }

  @Test("a client that stops reading: reads wait until its socket drains, then the one asked for is passed on")
  func stalledReads() {
    var limits = RelayLimits()
    limits.stalledWriteTimeout = .seconds(30)
    var machine = Machine(role: .server)
    _ = machine.becameActive(now: Self.start)
    machine.settingsReceived()
    machine.streamOpened()
    let reads = machine.readRequested()
    #expect(reads)
    #expect(machine.writabilityChanged(writable: false, now: Self.at(1)) == false)
    #expect(machine.readingPaused)
    #expect(machine.readRequested() == false)
    #expect(machine.expired(now: Self.at(30), limits: limits) == .none)
    #expect(machine.expired(now: Self.at(32), limits: limits) == .stalled)
    let pending = machine.writabilityChanged(writable: true, now: Self.at(2))
    #expect(pending)
    let readsAgain = machine.readRequested()
    #expect(!machine.readingPaused && readsAgain)
    #expect(machine.expired(now: Self.at(100), limits: limits) == .none)
  }

  @Test("an upstream that stops reading: the relay keeps reading from it (its answers free the relay's memory)")
  func upstreamStalled() {
    var machine = Machine(role: .client)
    _ = machine.becameActive(now: Self.start)
    _ = machine.writabilityChanged(writable: false, now: Self.at(1))
    let reads = machine.readRequested()
    #expect(!machine.readingPaused && reads)
    #expect(machine.writabilityChanged(writable: true, now: Self.at(2)) == false)
  }
}
