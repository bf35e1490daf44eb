package import Foundation
package import IntentMeshCore

/// A server executable started as a child process — by `intentmesh up` or by a test — whose output
/// is read on a thread of its own (`ChildOutput`), optionally copied to a log file, and which is
/// ready when it prints its `ServingLine`.
package final class LaunchedProcess: Sendable {
  /// Why a process could not be started or did not come up.
  package struct Failure: Error, CustomStringConvertible {
    package let description: String
  }

  /// How `stop` ended it.
  package struct Ending: Sendable, Equatable {
    package let status: Int32
    /// Whether it outlasted the grace period and was SIGKILLed.
    let killed: Bool
  }

  package let name: String
  package let process: ChildProcess

  /// Starts `executable` with `arguments` (and `environment` over this process's own). With `log`,
  /// everything it prints also goes to that file: begun anew, or, `appending`, continued after a
  /// line saying `restartNote`.
  package init(
    name: String, executable: URL, arguments: [String], environment: [String: String] = [:], log: URL? = nil,
    appending: Bool = false, restartNote: String = "restarted"
  ) throws {
    self.name = name
    var file: FileHandle?
    if let log {
      if !appending || !FileManager.default.fileExists(atPath: log.path) {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil, attributes: [.posixPermissions: 0o600])
      }
      // A log says who did what: this user's only, also when an earlier run left it open.
      try PrivateFiles.file(log.path)
      let handle = try FileHandle(forWritingTo: log)
      if appending {
        _ = handle.seekToEndOfFile()
        handle.write(Data("--- \(restartNote) at \(Date()) ---\n".utf8))
      }
      file = handle
    }
    do {
      process = try ChildProcess(
        executable: executable, arguments: arguments, environment: environment, output: .captured(copyingTo: file))
    } catch {
      try? file?.close()
      throw Failure(description: "\(name): \(error)")
    }
  }

  package var isRunning: Bool { process.isRunning }

  /// Everything it printed so far.
  package var text: String { process.output?.text ?? "" }

  /// How it ended, for people: "exited with status 1", "was killed by signal 9 (SIGKILL)".
  package var exitDescription: String {
    guard !process.isRunning else { return "is running" }
    let status = process.terminationStatus
    guard process.terminationReason == .uncaughtSignal else { return "exited with status \(status)" }
    let names: [Int32: String] = [
      SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGTERM: "SIGTERM", SIGINT: "SIGINT",
      SIGILL: "SIGILL", SIGBUS: "SIGBUS", SIGTRAP: "SIGTRAP",
    ]
    return "was killed by signal \(status)" + (names[status].map { " (\($0))" } ?? "")
  }

  /// Waits for its serving line; fails when it exits first or `timeout` passes (leaving it running:
  /// the caller decides).
  package func waitUntilServing(timeout: Duration = .seconds(120)) async throws -> ServingLine.Address {
    let deadline = ContinuousClock.now + timeout
    while true {
      if let address = ServingLine.address(in: text) { return address }
      guard process.isRunning else {
        throw Failure(description: "\(name) \(exitDescription) before serving:\n\(text)")
      }
      guard ContinuousClock.now < deadline else {
        throw Failure(description: "\(name) did not report serving in time:\n\(text)")
      }
      try await Task.sleep(for: .milliseconds(20))
    }
  }

  /// Sends `signal` (SIGTERM by default) and waits for it to exit; SIGKILL after `grace`. Off the
  /// caller's actor (`@concurrent`): it polls, and the CLI's `Supervisor` actor goes on meanwhile.
  @discardableResult
  @concurrent
  package func stop(signal: Int32 = SIGTERM, grace: Duration = .seconds(20)) async -> Ending {
    guard process.isRunning else { return Ending(status: process.terminationStatus, killed: false) }
    kill(process.processIdentifier, signal)
    let deadline = ContinuousClock.now + grace
    while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
    guard process.isRunning else { return Ending(status: process.terminationStatus, killed: false) }
    kill(process.processIdentifier, SIGKILL)
    return Ending(status: await process.exited().status, killed: true)
  }
}
