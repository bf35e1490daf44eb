import IntentMeshProtos
import SwiftProtobuf
import Foundation
import Synchronization

/// A service started by `intentmesh up`: its output goes to a log file, and it is ready when it
/// prints "serving on HOST:PORT".
final class ChildProcess: Sendable {
  let name: String
  let process: Process
  private let output = OutputBuffer()

  /// Starts `executable`; its output goes to `log`, which a restart (`appending`) continues after
  /// a line saying so, and a first start begins anew.
  init(name: String, executable: URL, arguments: [String], log: URL, appending: Bool = false) throws {
    self.name = name
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    if !appending || !FileManager.default.fileExists(atPath: log.path) {
      FileManager.default.createFile(atPath: log.path, contents: nil)
    }
    let file = try FileHandle(forWritingTo: log)
    if appending {
      _ = file.seekToEndOfFile()
      file.write(Data("--- restarted by intentmesh up at \(Date()) ---\n".utf8))
    }
    let output = self.output
    pipe.fileHandleForReading.readabilityHandler = { handle in
      let data = handle.availableData
      guard !data.isEmpty else { return }
      file.write(data)
      output.append(data)
    }
    self.process = process
    try process.run()
  }

  var isRunning: Bool { process.isRunning }

  /// How it ended, for people: "exited with status 1", "was killed by signal 9 (SIGKILL)".
  var exitDescription: String {
    guard !process.isRunning else { return "is running" }
    let status = process.terminationStatus
    guard process.terminationReason == .uncaughtSignal else { return "exited with status \(status)" }
    let names: [Int32: String] = [
      SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGTERM: "SIGTERM", SIGINT: "SIGINT",
      SIGILL: "SIGILL", SIGBUS: "SIGBUS", SIGTRAP: "SIGTRAP",
    ]
    return "was killed by signal \(status)" + (names[status].map { " (\($0))" } ?? "")
  }

  /// Waits for the "serving on" line; returns the address.
  func waitUntilServing(timeout: Duration = .seconds(120)) async throws -> String {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      let text = output.text
      if let line = text.split(separator: "\n").first(where: { $0.contains(" serving on ") }),
        let address = line.components(separatedBy: " serving on ").last
      {
        return address.trimmingCharacters(in: .whitespaces)
      }
      guard process.isRunning else {
        throw CLIError("\(name) exited with status \(process.terminationStatus):\n\(text)")
      }
      try await Task.sleep(for: .milliseconds(25))
    }
    throw CLIError("\(name) did not report serving in time")
  }

  /// SIGTERM, then waits; SIGKILL after `grace`.
  func stop(grace: Duration = .seconds(20)) async -> Int32 {
    guard process.isRunning else { return process.terminationStatus }
    kill(process.processIdentifier, SIGTERM)
    let deadline = ContinuousClock.now + grace
    while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(25)) }
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    return process.terminationStatus
  }
}

/// Text appended from a pipe's reader thread.
final class OutputBuffer: Sendable {
  private let value = Mutex("")

  func append(_ data: Data) { value.withLock { $0 += String(decoding: data, as: UTF8.self) } }

  var text: String { value.withLock { $0 } }
}
