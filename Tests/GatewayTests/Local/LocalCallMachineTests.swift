import GRPCCore
import NIOCore
import Testing

@testable import Gateway

/// A call of the gateway's own server between the relay's loop and its task, without either:
/// waiters are numbers.
@Suite("Gateway in-process server: a call's exchange")
struct LocalCallMachineTests {
  typealias Machine = LocalCallMachine<Int, Int>

  static func item(_ byte: UInt8, wire: Int = 6) -> Machine.Item {
    .init(part: .message(LocalCallBytes([byte])), wireBytes: wire)
  }

  static func byte(_ action: Machine.ReadAction) -> UInt8? {
    guard case .take(let item) = action, case .message(let bytes) = item.part else { return nil }
    return bytes.buffer.getInteger(at: bytes.buffer.readerIndex)
  }

  @Test("parts queue until read; a reader that finds none waits and is handed the next; the end after the last")
  func request() {
    var machine = Machine(window: 10)
    #expect(machine.deliver(Self.item(1)) == nil)
    #expect(machine.deliver(Self.item(2)) == nil)
    #expect(Self.byte(machine.read(as: 100)) == 1)
    #expect(Self.byte(machine.read(as: 100)) == 2)
    guard case .wait = machine.read(as: 101) else { Issue.record("a reader finding nothing waits"); return }
    #expect(machine.deliver(Self.item(3)) == 101, "handed straight to the waiting reader")
    #expect(machine.deliver(Self.item(4)) == nil)
    #expect(machine.endRequest() == nil)
    #expect(machine.deliver(Self.item(5)) == nil, "nothing after the end")
    #expect(Self.byte(machine.read(as: 102)) == 4)
    guard case .end = machine.read(as: 102) else { Issue.record("the request ended"); return }
  }

  @Test("a request that ends with an error: queued parts first, then the error; a waiting reader hears it at once")
  func requestFails() {
    var machine = Machine(window: 10)
    _ = machine.deliver(Self.item(1))
    #expect(machine.endRequest(failure: RPCError(code: .internalError, message: "cut")) == nil)
    #expect(Self.byte(machine.read(as: 1)) == 1)
    guard case .fail(let error) = machine.read(as: 1) else { Issue.record("fails after its parts"); return }
    #expect(error.code == .internalError)

    var waiting = Machine(window: 10)
    _ = waiting.read(as: 7)
    #expect(waiting.endRequest(failure: RPCError(code: .internalError, message: "cut")) == 7)
  }

  @Test("the answer: writes go on until a window is in flight, then wait for the relay's acknowledgement")
  func answerWindow() {
    var machine = Machine(window: 10)
    guard case .proceed = machine.write(bytes: 6, as: 1) else { Issue.record("within the window"); return }
    guard case .proceed = machine.write(bytes: 4, as: 1) else { Issue.record("exactly the window"); return }
    guard case .wait = machine.write(bytes: 5, as: 2) else { Issue.record("past the window: waits"); return }
    #expect(machine.acknowledge(4) == nil, "15 - 4 = 11 still past the window")
    #expect(machine.acknowledge(1) == 2, "10 in flight: the writer goes on")
    #expect(machine.acknowledge(10) == nil)
    guard case .proceed = machine.write(bytes: 10, as: 3) else { Issue.record("all acknowledged"); return }
    #expect(machine.acknowledge(100) == nil, "more than in flight is not a debt")
    guard case .writing(0, nil) = machine.response else { Issue.record("nothing in flight"); return }
  }

  @Test("a reset fails both sides, waiting or not, and every read and write after it")
  func cancel() {
    var machine = Machine(window: 1)
    _ = machine.deliver(Self.item(1))
    _ = machine.write(bytes: 5, as: 9)
    let waiting = machine.cancel(RPCError(code: .cancelled, message: "reset"))
    #expect(waiting.reader == nil && waiting.writer == 9)
    guard case .fail(let error) = machine.read(as: 1) else { Issue.record("reads fail"); return }
    #expect(error.code == .cancelled)
    guard case .fail = machine.write(bytes: 1, as: 1) else { Issue.record("writes fail"); return }
    #expect(machine.deliver(Self.item(2)) == nil)
    #expect(machine.acknowledge(5) == nil)

    var reading = Machine(window: 1)
    _ = reading.read(as: 4)
    #expect(reading.cancel(RPCError(code: .cancelled, message: "reset")).reader == 4)
    #expect(reading.cancel(RPCError(code: .cancelled, message: "again")).reader == nil, "once")
  }
}
