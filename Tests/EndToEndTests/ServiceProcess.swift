import Foundation
import IntentsKitTesting

/// A built service executable running on a loopback port, for end-to-end tests over real sockets.
final class ServiceProcess: Sendable {
  let process: Process
  let port: Int
  private let output: ChildOutput

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
    let process = Process()
    process.executableURL = url
    // Every service under test checks tokens against the test identity's JWKS.
    process.arguments =
      executable == "intentmesh" || arguments.contains("--jwks") ? arguments : arguments + TestIdentity.serviceArguments
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let output = ChildOutput.capture(process)
    try process.run()
    self.process = process
    self.output = output
    let deadline = ContinuousClock.now + timeout
    var found: Int?
    while found == nil {
      if let line = output.text.split(separator: "\n").first(where: { $0.contains(" serving on ") }),
        let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
      {
        found = port
        break
      }
      guard process.isRunning else {
        throw Failure(description: "\(executable) exited with \(process.terminationStatus): \(output.text)")
      }
      guard ContinuousClock.now < deadline else {
        process.terminate()
        throw Failure(description: "\(executable) did not report serving in time: \(output.text)")
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    self.port = found!
  }

  /// Everything the process printed so far.
  var log: String { output.text }

  /// Sends `signal` and waits for the process to exit; returns its exit status.
  func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(30)) async throws -> Int32 {
    kill(process.processIdentifier, signal)
    let deadline = ContinuousClock.now + timeout
    while process.isRunning {
      guard ContinuousClock.now < deadline else {
        kill(process.processIdentifier, SIGKILL)
        throw Failure(description: "process did not stop after signal \(signal): \(log)")
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    return process.terminationStatus
  }

  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }
}
