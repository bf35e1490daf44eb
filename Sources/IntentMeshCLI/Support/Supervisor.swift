import Foundation
import ServiceKit
import ServiceLauncher

/// What `intentmesh up` runs and how to run it again: the executable, its arguments for a port,
/// and its log.
struct ServiceSpec: Sendable {
  let name: String
  let executable: URL
  /// The arguments for serving on a port (0: a free one).
  let arguments: @Sendable (Int) -> [String]
  let log: URL
}

/// Keeps the services of `intentmesh up` running: a service that dies is started again on the
/// port it served on, with its store, after a delay that grows with quick crashes in a row
/// (`RestartPolicy`); one that cannot stay up is left down and reported. The others go on serving
/// meanwhile — the gateway answers UNAVAILABLE for the missing domain's intents only.
actor Supervisor {
  private enum Phase {
    /// Running since `since`.
    case running(LaunchedProcess, since: ContinuousClock.Instant)
    /// Dead, and to be started again after a delay.
    case restarting
    /// Dead after too many quick crashes; left down.
    case givenUp
  }

  private struct Member {
    let spec: ServiceSpec
    /// The port it served on first, and is started on again.
    let port: Int
    var phase: Phase
    var policy = RestartPolicy()
  }

  private var members: [Member] = []
  private var stopping = false
  /// Services left down, by name.
  private(set) var givenUp: [String] = []

  /// Takes over `process`, started from `spec` and serving on `port`.
  func adopt(_ process: LaunchedProcess, spec: ServiceSpec, port: Int) {
    members.append(Member(spec: spec, port: port, phase: .running(process, since: .now)))
  }

  /// Checks the services every `interval` until the task is cancelled.
  func watch(interval: Duration = .milliseconds(200)) async {
    while !Task.isCancelled, !stopping {
      for index in members.indices { checkMember(index) }
      try? await Task.sleep(for: interval)
    }
  }

  private func checkMember(_ index: Int) {
    guard !stopping, case .running(let process, let since) = members[index].phase, !process.isRunning else { return }
    let spec = members[index].spec
    let ran = ContinuousClock.now - since
    let died = "\(spec.name) \(process.exitDescription) after \(Self.seconds(ran))"
    switch members[index].policy.processDied(afterRunning: ran) {
    case .giveUp:
      members[index].phase = .givenUp
      givenUp.append(spec.name)
      Terminal.say(
        "\(died); it crashed \(members[index].policy.quickCrashes) times in a row soon after starting, so it stays down"
          + " (log: \(spec.log.path)). The other services keep running; Ctrl-C stops them.")
    case .restart(let delay):
      members[index].phase = .restarting
      Terminal.say(
        "\(died); restarting it in \(Self.seconds(delay)) on port \(members[index].port) (log: \(spec.log.path))")
      Task { await self.restart(index, after: delay) }
    }
  }

  private func restart(_ index: Int, after delay: Duration) async {
    try? await Task.sleep(for: delay)
    guard !stopping else { return }
    let member = members[index]
    let process: LaunchedProcess
    do {
      process = try LaunchedProcess(
        name: member.spec.name, executable: member.spec.executable, arguments: member.spec.arguments(member.port),
        log: member.spec.log, appending: true, restartNote: "restarted by intentmesh up")
    } catch {
      members[index].phase = .givenUp
      givenUp.append(member.spec.name)
      Terminal.say("\(member.spec.name) could not be started again (\(error)); it stays down")
      return
    }
    members[index].phase = .running(process, since: .now)
    // If it dies again before serving, `watch` sees it and decides.
    if let address = try? await process.waitUntilServing(timeout: .seconds(60)) {
      Terminal.say("\(member.spec.name) is back on \(address)")
    }
  }

  /// Stops watching and stops every service, the last adopted first (the gateway before the
  /// domains), each waiting for its calls in flight; their exit statuses.
  @discardableResult
  func stopAll() async -> [Int32] {
    stopping = true
    var statuses: [Int32] = []
    for member in members.reversed() {
      if case .running(let process, _) = member.phase { statuses.append(await process.stop().status) }
    }
    return statuses
  }

  private static func seconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(format: "%.2f s", Double(seconds) + Double(attoseconds) / 1e18)
  }
}
