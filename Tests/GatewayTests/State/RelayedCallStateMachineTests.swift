import NIOCore
import NIOHPACK
import Testing

@testable import Gateway

/// The per-call state machine without connections: routing decisions, and the flow-control
/// accounting that grants each DATA byte back exactly once on every path.
@Suite("Gateway relay: a call's state machine")
struct RelayedCallStateMachineTests {
  typealias Machine = RelayedCallStateMachine

  static let headers = HPACKHeaders([(":path", "/intentmesh.v1.IntentsExtension/Resolve")])
  static let domain = DomainEndpoint(host: "127.0.0.1", port: 7001)

  /// A gRPC message of `length` bytes (prefix included: `length + 5`), or only its first `cut` bytes.
  static func message(length: Int, compressed: Bool = false, cut: Int? = nil) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.writeInteger(UInt8(compressed ? 1 : 0))
    buffer.writeInteger(UInt32(length))
    buffer.writeRepeatingByte(7, count: length)
    if let cut { buffer.moveWriterIndex(to: cut) }
    return buffer
  }

  static func arrive(_ machine: inout Machine, _ buffer: ByteBuffer, end: Bool = false, encoded: Bool = false)
    -> Machine.RequestAction
  {
    machine.requestArrived(
      .data(buffer, endStream: end), bytes: buffer.readableBytes, routedByFirstMessage: true,
      maxMessageBytes: 4 << 20, encoded: encoded)
  }

  @Test("a pass-through call is held until its first message is whole, then scanned")
  func heldUntilWhole() {
    var machine = Machine(headers: Self.headers, endStream: false)
    let whole = Self.message(length: 100)
    let first = whole.getSlice(at: 0, length: 40)!
    let rest = whole.getSlice(at: 40, length: 65)!
    #expect(Self.arrive(&machine, first) == .held(bytes: 40, decision: .wait))
    guard case .held(65, .scan(let scanned)) = Self.arrive(&machine, rest) else {
      Issue.record("not scanned once whole")
      return
    }
    #expect(scanned.readableBytes == 100)
    let (request, released) = machine.open(to: .domain(Self.domain), keepForRetry: false)
    #expect(request.count == 3 && released == 105)
    #expect(!machine.isRouting)
    // The held bytes are granted back as they leave upstream, never beyond what was held.
    #expect(machine.sentUpstream(60) == 60)
    #expect(machine.sentUpstream(60) == 45)
    #expect(machine.sentUpstream(10) == 0)
  }

  @Test(
    "the first bytes decide: too large, compressed without an encoding, compressed with one, too large to hold",
    arguments: [
      (
        Self.message(length: 5 << 20, cut: 5), false,
        Machine.RouteDecision.refuse(.messageTooLarge(length: 5 << 20, limit: 4 << 20))
      ),
      (Self.message(length: 10, compressed: true), false, .refuse(.compressedWithoutEncoding)),
      (Self.message(length: 10, compressed: true), true, .gatewayServer),
      (Self.message(length: 600_000, cut: 600_000), false, .largeMessage(length: 600_000)),
      (Self.message(length: 600_000, cut: 4), false, .wait),
    ])
  func firstBytesDecide(buffer: ByteBuffer, encoded: Bool, decision: Machine.RouteDecision) {
    var machine = Machine(headers: Self.headers, endStream: false)
    #expect(Self.arrive(&machine, buffer, encoded: encoded) == .held(bytes: buffer.readableBytes, decision: decision))
  }

  @Test("a request that ends before its first message is whole goes to the gateway's server")
  func endsShort() {
    var machine = Machine(headers: Self.headers, endStream: false)
    #expect(
      Self.arrive(&machine, Self.message(length: 50, cut: 20), end: true) == .held(bytes: 20, decision: .gatewayServer))
    #expect(machine.requestEnded)
  }

  @Test("refused while routing: what was held is granted back, once; later bytes are granted at once")
  func refusedWhileRouting() {
    var machine = Machine(headers: Self.headers, endStream: false)
    _ = Self.arrive(&machine, Self.message(length: 100, cut: 30))
    #expect(machine.refuse(.firstMessageTimeout) == 30)
    #expect(machine.response == .ended)
    #expect(machine.refuse(.firstMessageTimeout) == nil)
    #expect(Self.arrive(&machine, Self.message(length: 8)) == .creditClient(13))
    #expect(machine.clientReset()! == (0, 0, 0))
  }

  @Test("a client that resets while its call is routed gets the held bytes back on its connection")
  func clientResetWhileRouting() {
    var machine = Machine(headers: Self.headers, endStream: false)
    _ = Self.arrive(&machine, Self.message(length: 300_000, cut: 200_000))
    let (released, creditClient, creditUpstream) = machine.clientReset()!
    #expect(released == 200_000 && creditClient == 200_000 && creditUpstream == 0)
    #expect(machine.clientReset() == nil)
  }

  @Test("a domain that refuses the stream before answering: the kept request goes once to the gateway's server")
  func retryOnce() {
    var machine = Machine(headers: Self.headers, endStream: false)
    _ = Self.arrive(&machine, Self.message(length: 10), end: true)
    let (request, _) = machine.open(to: .domain(Self.domain), keepForRetry: true)
    #expect(machine.sentUpstream(15) == 15)
    let (action, credit) = machine.upstreamReset()
    #expect(action == .retry(request) && credit == 0)
    // Sent again, the copy is owed nothing: it was granted back already.
    #expect(machine.sentUpstream(15) == 0)
    let (second, _) = machine.upstreamReset()
    #expect(second == .fail(toDomain: false, trailersOnly: true))
    #expect(machine.response == .ended)
  }

  @Test("an upstream that resets mid-answer: UNAVAILABLE in trailers; what the request still owed comes back")
  func resetMidAnswer() {
    var machine = Machine(headers: Self.headers, endStream: false)
    _ = Self.arrive(&machine, Self.message(length: 10))
    _ = machine.open(to: .domain(Self.domain), keepForRetry: false)
    #expect(machine.responseHeadersArrived(endStream: false) == .forward(first: true, answered: false, creditClient: 0))
    #expect(
      machine.responseDataArrived(bytes: 50, endStream: false)
        == .forward(first: false, answered: false, creditClient: 0))
    let (action, credit) = machine.upstreamReset()
    #expect(action == .fail(toDomain: true, trailersOnly: false) && credit == 15)
    // The answer's bytes still on their way to the client are granted to the upstream connection as they leave.
    #expect(machine.sentToClient(50) == 50)
  }

  @Test("a complete answer: the unsent rest of the request is granted back, and what the client sends after")
  func answerComplete() {
    var machine = Machine(headers: Self.headers, endStream: false)
    _ = Self.arrive(&machine, Self.message(length: 10))
    _ = machine.open(to: .domain(Self.domain), keepForRetry: false)
    #expect(machine.sentUpstream(5) == 5)
    _ = machine.responseHeadersArrived(endStream: false)
    #expect(machine.responseHeadersArrived(endStream: true) == .forward(first: false, answered: true, creditClient: 10))
    #expect(Self.arrive(&machine, Self.message(length: 3)) == .creditClient(8))
    #expect(machine.sentUpstream(10) == 0)
    #expect(machine.headerListRefused() == nil)
  }

  @Test("trailers the upstream would not take: the call ends with the answer so far, not trailers-only")
  func trailersRefused() {
    var machine = Machine(headers: Self.headers, endStream: false)
    _ = Self.arrive(&machine, Self.message(length: 10))
    _ = machine.open(to: .domain(Self.domain), keepForRetry: false)
    _ = machine.responseHeadersArrived(endStream: false)
    let refused = machine.headerListRefused()
    #expect(refused?.creditClient == 15 && refused?.trailersOnly == false)
    #expect(machine.responseDataArrived(bytes: 9, endStream: false) == .creditUpstream(9))
  }

  /// Random sequences of everything that can happen to a call, with a model of what each side's
  /// stream holds: at the end, every byte each side sent has been granted back to it exactly once.
  @Test("every byte is granted back exactly once, over 2,000 random calls", arguments: 0..<4)
  func conservation(seed: UInt64) {
    var random = SplitMix(seed: seed)
    for _ in 0..<500 {
      var machine = Machine(headers: Self.headers, endStream: false)
      var fromClient = 0, grantedClient = 0, fromUpstream = 0, grantedUpstream = 0
      var queuedUpstream = 0, queuedClient = 0  // bytes waiting to leave on each stream
      var clientGone = false, upstreamOpen = false, requestEnded = false, answered = false
      func open(_ destination: Machine.Destination) {
        let (request, _) = machine.open(to: destination, keepForRetry: random.next() % 2 == 0 && requestEnded)
        queuedUpstream += request.reduce(0) { if case .data(let b, _) = $1 { $0 + b.readableBytes } else { $0 } }
        upstreamOpen = true
      }
      for _ in 0..<(random.next() % 12) {
        switch random.next() % 9 {
        case 0, 1:
          guard !requestEnded, !clientGone else { continue }
          let bytes = Int(random.next() % 3000)
          let end = random.next() % 5 == 0
          requestEnded = end
          fromClient += bytes
          var buffer = ByteBuffer()
          buffer.writeRepeatingByte(0, count: bytes)
          switch machine.requestArrived(
            .data(buffer, endStream: end), bytes: bytes, routedByFirstMessage: false, maxMessageBytes: 1 << 20,
            encoded: false)
          {
          case .forward: queuedUpstream += bytes
          case .creditClient(let n): grantedClient += n
          case .held(_, let decision): if decision == .gatewayServer { open(.gatewayServer) }
          }
        case 2:
          guard machine.isRouting else { continue }
          if random.next() % 2 == 0 {
            open(.domain(Self.domain))
          } else if let held = machine.refuse(.firstMessageTimeout) {
            grantedClient += held
          }
        case 3:
          let bytes = min(queuedUpstream, Int(random.next() % 4000))
          queuedUpstream -= bytes
          grantedClient += machine.sentUpstream(bytes)
        case 4:
          guard upstreamOpen, !answered else { continue }
          let bytes = Int(random.next() % 3000)
          let end = random.next() % 4 == 0
          fromUpstream += bytes
          switch machine.responseDataArrived(bytes: bytes, endStream: end) {
          case .forward(_, let done, let credit):
            queuedClient += bytes
            grantedClient += credit
            if done {
              answered = true
              queuedUpstream = 0  // the upstream stream is reset: its queue goes
            }
          case .creditUpstream(let n): grantedUpstream += n
          }
        case 5:
          let bytes = min(queuedClient, Int(random.next() % 4000))
          queuedClient -= bytes
          grantedUpstream += machine.sentToClient(bytes)
        case 6:
          guard upstreamOpen, !answered else { continue }
          queuedUpstream = 0
          let (action, credit) = machine.upstreamReset()
          grantedClient += credit
          if case .retry = action { upstreamOpen = true } else { answered = true }
        case 7:
          guard upstreamOpen, let (credit, _) = machine.headerListRefused() else { continue }
          queuedUpstream = 0
          grantedClient += credit
          answered = true
        default:
          guard !clientGone, let (_, credit, creditUp) = machine.clientReset() else { continue }
          clientGone = true
          queuedClient = 0
          queuedUpstream = 0
          grantedClient += credit
          grantedUpstream += creditUp
        }
      }
      // Whatever is still queued leaves, then the client goes: nothing may be owed after.
      grantedClient += machine.sentUpstream(queuedUpstream)
      grantedUpstream += machine.sentToClient(queuedClient)
      if let (_, credit, creditUp) = machine.clientReset() {
        grantedClient += credit
        grantedUpstream += creditUp
      }
      #expect(grantedClient == fromClient)
      #expect(grantedUpstream == fromUpstream)
    }
  }
}

/// A small deterministic random source for the simulation.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
