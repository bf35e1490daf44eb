@testable import ServiceKit
import Testing

@Suite("Restart policy of intentmesh up")
struct RestartPolicyTests {
  @Test("quick crashes in a row wait longer each time, up to the cap, then give up")
  func quickCrashes() {
    var policy = RestartPolicy(
      quickRun: .seconds(10), firstDelay: .milliseconds(250), maxDelay: .seconds(1), maxQuickCrashes: 5)
    let decisions = (0..<6).map { _ in policy.processDied(afterRunning: .seconds(1)) }
    #expect(
      decisions == [
        .restart(after: .milliseconds(250)), .restart(after: .milliseconds(500)), .restart(after: .seconds(1)),
        .restart(after: .seconds(1)), .restart(after: .seconds(1)), .giveUp,
      ])
  }

  @Test("a long run forgets earlier crashes: the next crash restarts soon again")
  func longRunResets() {
    var policy = RestartPolicy(maxQuickCrashes: 2)
    #expect(policy.processDied(afterRunning: .milliseconds(100)) == .restart(after: .milliseconds(250)))
    #expect(policy.processDied(afterRunning: .milliseconds(100)) == .restart(after: .milliseconds(500)))
    #expect(policy.processDied(afterRunning: .seconds(60)) == .restart(after: .milliseconds(250)))
    #expect(policy.quickCrashes == 0)
    #expect(policy.processDied(afterRunning: .milliseconds(100)) == .restart(after: .milliseconds(250)))
    #expect(policy.processDied(afterRunning: .milliseconds(100)) == .restart(after: .milliseconds(500)))
    #expect(policy.processDied(afterRunning: .milliseconds(100)) == .giveUp)
  }
}
