@testable import IntentsKit
import IntentMeshProtos
import SwiftProtobuf
import Foundation
import IntentsKitTesting
@testable import ServiceLauncher
import Testing

/// Drives the `intentmesh` executable over stdin and stdout against a gateway and UnicornChat.
@Suite("intentmesh chat and send, over stdin and stdout", .serialized)
struct CLITests {
  static var binary: URL {
    if let dir = ProcessInfo.processInfo.environment["INTENTMESH_BIN_DIR"] {
      return URL(fileURLWithPath: dir).appendingPathComponent("intentmesh")
    }
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("intentmesh").path),
      directory.pathComponents.count > 1
    {
      directory = directory.deletingLastPathComponent()
    }
    return directory.appendingPathComponent("intentmesh")
  }

  /// Runs intentmesh with `arguments`, answering each prompt with the next line of `answers` as it
  /// appears; returns the exit status and everything printed.
  static func run(_ arguments: [String], answers: [String]) async throws -> (Int32, String) {
    // Signed in with the test identity, as `intentmesh up`'s data folder would sign.
    let process = try ChildProcess(
      executable: binary, arguments: arguments + ["--data", TestIdentity.dataDirectory.path], input: .pipe)
    var pending = answers
    let deadline = ContinuousClock.now + .seconds(60)
    var answered = 0
    while process.isRunning, ContinuousClock.now < deadline {
      let prompts = process.text.components(separatedBy: "] ").count - 1
      if prompts > answered, !pending.isEmpty {
        process.write(toStandardInput: pending.removeFirst() + "\n")
        answered += 1
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    process.terminate()
    let ended = await process.exited()
    await process.outputEnded()
    return (ended.status, process.text)
  }

  @Test("chat: the seeds' conversation, with a pick from a list and a yes")
  func chat() async throws {
    try await TestGateway.run { harness in
      let port = try #require(await harness.gatewayPort)
      let (status, output) = try await Self.run(
        ["chat", "INSendMessageIntent", "--app", "UnicornChat", "--gateway", "127.0.0.1:\(port)"],
        answers: ["Diana", "2", "Great job on your presentation.", "yes"])
      #expect(status == 0, "\(output)")
      #expect(output.contains("UnicornChat: To whom?"), "\(output)")
      #expect(output.contains("UnicornChat: Which Diana?"))
      #expect(output.contains("  1. Diana Prince") && output.contains("  2. Diana Ross"))
      #expect(output.contains("UnicornChat: What do you want to say to Diana Ross?"))
      #expect(output.contains("UnicornChat: Ready to send it?"))
      #expect(output.contains("UnicornChat: done (success)"))
      #expect(output.contains("💬 Great job on your presentation."))
      #expect(output.contains("Sent"))
    }
  }

  @Test("send: parameters on the command line; --yes answers the confirmation")
  func send() async throws {
    try await TestGateway.run { harness in
      let port = try #require(await harness.gatewayPort)
      let (status, output) = try await Self.run(
        [
          "send", "INSendMessageIntent", "--app", "CornChat", "--gateway", "127.0.0.1:\(port)", "--param",
          "recipients=Celestra",
          "--param", "recipients=Sparkle Sparkly", "--param", "content=Rainbow polish at noon", "--yes",
        ], answers: [])
      #expect(status == 0, "\(output)")
      #expect(output.contains("done (success)"))
      #expect(output.contains("To: Celestra and Scott Andrus"), "\(output)")
      let (incomplete, asked) = try await Self.run(
        ["send", "INSendMessageIntent", "--gateway", "127.0.0.1:\(port)", "--param", "recipients=Celestra"], answers: []
      )
      #expect(incomplete == 2)
      #expect(asked.contains("What do you want to say to Celestra?"))
    }
  }
}
