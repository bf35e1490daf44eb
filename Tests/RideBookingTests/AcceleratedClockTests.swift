import Foundation
@testable import IntentsKit
@testable import RideBooking
import Synchronization
import Testing

/// UnicornRides' accelerated clock: a function of the wall clock and an epoch, so that a service
/// restarted with the stack's epoch carries on rather than going back in time (found by
/// scripts/chaos: finished rides looked unfinished after a SIGKILL and restart at speed 120).
@Suite("AcceleratedClock: speed from an epoch, continuous across restarts")
struct AcceleratedClockTests {
  /// A wall clock the test moves.
  final class Wall: Sendable {
    let seconds = Mutex<Double>(1_779_440_400)
    func advance(_ by: Double) { seconds.withLock { $0 += by } }
    var now: Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
  }

  @Test("at the epoch it reads the wall clock; each wall second after it moves speed seconds")
  func runsFasterFromTheEpoch() {
    let wall = Wall()
    let clock = AcceleratedClock(speed: 120, epoch: wall.now, wall: { wall.now })
    let start = clock.now()
    #expect(start == wall.now)
    wall.advance(3)
    #expect(clock.now().timeIntervalSince(start) == 360)
  }

  @Test("a clock made later with the same epoch (a restarted service) reads the same time, not the epoch")
  func restartCarriesOn() {
    let wall = Wall()
    let epoch = wall.now
    let before = AcceleratedClock(speed: 120, epoch: epoch, wall: { wall.now })
    wall.advance(30)
    let reached = before.now()
    let restarted = AcceleratedClock(speed: 120, epoch: epoch, wall: { wall.now })
    #expect(restarted.now() == reached)
    wall.advance(1)
    #expect(restarted.now() > reached)
  }

  @Test("the environment: speed 1 is the wall clock; the epoch from INTENTMESH_CLOCK_EPOCH; bad values refused")
  func configured() throws {
    #expect(try UnicornRides.configuredClock([:]) is SystemClock)
    #expect(try UnicornRides.configuredClock(["UNICORNRIDES_CLOCK_SPEED": "1"]) is SystemClock)
    let clock = try UnicornRides.configuredClock([
      "UNICORNRIDES_CLOCK_SPEED": "60", "INTENTMESH_CLOCK_EPOCH": "1779440400.5",
    ])
    let accelerated = try #require(clock as? AcceleratedClock)
    #expect(accelerated.speed == 60)
    #expect(accelerated.epoch == Date(timeIntervalSince1970: 1_779_440_400.5))
    for bad in ["soon", "-1", "inf"] {
      #expect(throws: AcceleratedClock.InvalidEpoch.self) {
        try UnicornRides.configuredClock(["UNICORNRIDES_CLOCK_SPEED": "60", "INTENTMESH_CLOCK_EPOCH": bad])
      }
    }
  }
}
