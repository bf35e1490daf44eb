/// When a supervised process that died is started again (`intentmesh up`): soon after a long run;
/// after quick crashes, with a delay that doubles each time; and not again after `maxQuickCrashes`
/// quick crashes in a row — a process that cannot stay up is reported, not restarted forever.
package struct RestartPolicy: Sendable, Equatable {
  /// What to do about a process that died.
  package enum Decision: Sendable, Equatable {
    case restart(after: Duration)
    case giveUp
  }

  /// A run shorter than this ended in a quick crash.
  var quickRun: Duration
  /// The delay before the first restart, doubled for each quick crash in a row.
  var firstDelay: Duration
  /// The longest delay.
  var maxDelay: Duration
  /// Quick crashes in a row after which the process is left down.
  var maxQuickCrashes: Int
  /// Quick crashes in a row so far.
  package private(set) var quickCrashes = 0

  package init(
    quickRun: Duration = .seconds(10), firstDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(8),
    maxQuickCrashes: Int = 5
  ) {
    self.quickRun = quickRun
    self.firstDelay = firstDelay
    self.maxDelay = maxDelay
    self.maxQuickCrashes = maxQuickCrashes
  }

  /// The process died after running for `ran`.
  package mutating func processDied(afterRunning ran: Duration) -> Decision {
    guard ran < quickRun else {
      quickCrashes = 0
      return .restart(after: firstDelay)
    }
    quickCrashes += 1
    guard quickCrashes <= maxQuickCrashes else { return .giveUp }
    var delay = firstDelay
    for _ in 1..<quickCrashes where delay < maxDelay { delay *= 2 }
    return .restart(after: min(delay, maxDelay))
  }
}
