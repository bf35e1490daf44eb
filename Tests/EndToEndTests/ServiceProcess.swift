import Foundation
@testable import IntentMeshCore
import IntentsKitTesting
@testable import ServiceLauncher

/// A built service executable running on a loopback port, for end-to-end tests over real sockets:
/// ServiceLauncher's `LaunchedProcess` (the launcher `intentmesh up` uses) with the test identity's
/// token check and the port from its serving line.
final class ServiceProcess: Sendable {
  let launched: LaunchedProcess
  let port: Int
  var process: ChildProcess { launched.process }

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// The folder holding the built executables: next to the test bundle, or INTENTMESH_BIN_DIR.
  static var binDirectory: URL {
    if let dir = ProcessInfo.processInfo.environment["INTENTMESH_BIN_DIR"] { return URL(fileURLWithPath: dir) }
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = testBinary.deletingLastPathComponent()
    // On some platforms the test binary sits inside a bundle (…/X.xctest/Contents/MacOS/X).
    while directory.pathComponents.count > 1,
      !FileManager.default.fileExists(atPath: directory.appendingPathComponent("messaging-service").path)
    {
      let parent = directory.deletingLastPathComponent()
      if parent == directory { break }
      directory = parent
    }
    return directory
  }

  /// Starts `executable` with `arguments` and waits until it prints "serving on HOST:PORT".
  init(
    _ executable: String, arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(60)
  ) async throws {
    let url = Self.binDirectory.appendingPathComponent(executable)
    guard FileManager.default.isExecutableFile(atPath: url.path) else {
      throw Failure(description: "\(url.path) is not built; run `swift build` before the tests")
    }
    // Every service under test checks tokens against the test identity's JWKS.
    let arguments =
      executable == "intentmesh" || arguments.contains("--jwks") ? arguments : arguments + TestIdentity.serviceArguments
    let launched = try LaunchedProcess(
      name: executable, executable: url, arguments: arguments, environment: environment)
    do {
      port = try await launched.waitUntilServing(timeout: timeout).port
    } catch {
      let exited = !launched.isRunning
      await launched.stop(signal: SIGKILL)
      throw Failure(
        description: exited
          ? "\(executable) exited with \(launched.process.terminationStatus): \(launched.text)"
          : "\(executable) did not report serving in time: \(launched.text)")
    }
    self.launched = launched
  }

  /// Everything the process printed so far.
  var log: String { launched.text }

  /// Sends `signal` and waits for the process to exit; returns its exit status. Fails when it has
  /// not exited within `timeout` (it is then killed).
  func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(30)) async throws -> Int32 {
    let ending = await launched.stop(signal: signal, grace: timeout)
    guard !ending.killed else { throw Failure(description: "process did not stop after signal \(signal): \(log)") }
    return ending.status
  }

  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }
}
