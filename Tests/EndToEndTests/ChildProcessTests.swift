import Foundation
@testable import ServiceLauncher
import Testing

/// `ChildProcess`, the launcher's own `posix_spawn`: what a started process gets and how its end
/// is told, with /bin/sh as the child.
@Suite("ChildProcess: a child started with posix_spawn")
struct ChildProcessTests {
  static let shell = URL(fileURLWithPath: "/bin/sh")

  static func run(_ script: String, input: ChildProcess.Input = .inherited, environment: [String: String] = [:])
    async throws -> (ChildProcess.Termination, String)
  {
    let child = try ChildProcess(executable: shell, arguments: ["-c", script], environment: environment, input: input)
    let ended = await child.exited()
    await child.outputEnded()
    return (ended, child.text)
  }

  @Test("its exit code, its standard output and error in one, and the environment given over this one's")
  func exitAndOutput() async throws {
    let (ended, text) = try await Self.run(
      "echo out; echo err >&2; echo \"$INTENTMESH_CHILD_TEST\"; exit 3", environment: ["INTENTMESH_CHILD_TEST": "given"]
    )
    #expect(ended == ChildProcess.Termination(reason: .exit, status: 3))
    #expect(text == "out\nerr\ngiven\n")
  }

  @Test("the signal that ended it; a signal this process ignores is the default again in the child")
  func signals() async throws {
    let child = try ChildProcess(executable: Self.shell, arguments: ["-c", "sleep 30"])
    #expect(child.isRunning)
    child.terminate()
    #expect(await child.exited() == ChildProcess.Termination(reason: .uncaughtSignal, status: SIGTERM))
    #expect(child.terminationReason == .uncaughtSignal)

    // Servers here ignore SIGPIPE (NIO does; so does this process from here on, whatever ran
    // before); a child starts with it back at the default, as from a shell.
    signal(SIGPIPE, SIG_IGN)
    let (ended, text) = try await Self.run("grep SigIgn /proc/self/status")
    #expect(ended.status == 0)
    let ignored = try #require(
      UInt64(text.split(separator: "\t").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "", radix: 16))
    #expect(ignored & (1 << (UInt64(SIGPIPE) - 1)) == 0, "\(text)")
  }

  @Test("no descriptor of this process but 0, 1 and 2 reaches the child, even one not opened close-on-exec")
  func descriptors() async throws {
    let null = open("/dev/null", O_RDONLY)
    defer { close(null) }
    // A copy at 700 or above, without close-on-exec: inherited, were it not closed in the child.
    let leaky = fcntl(null, F_DUPFD, 700)
    try #require(leaky >= 700)
    defer { close(leaky) }
    let (ended, text) = try await Self.run("ls /proc/self/fd")
    #expect(ended.status == 0)
    // ls's own directory descriptor is the one entry past 2.
    let listed = text.split(separator: "\n").compactMap { Int32($0) }.filter { $0 > 2 }
    #expect(listed.count == 1, "\(text)")
    #expect(!listed.contains(leaky), "\(text)")
  }

  @Test("standard input from a pipe: what is written is read, and closing it ends the child's input")
  func standardInput() async throws {
    let child = try ChildProcess(executable: Self.shell, arguments: ["-c", "cat; echo done"], input: .pipe)
    #expect(child.write(toStandardInput: "first line\n"))
    #expect(child.write(toStandardInput: "second\n"))
    child.closeStandardInput()
    #expect(!child.write(toStandardInput: "late\n"))
    #expect(await child.exited().status == 0)
    await child.outputEnded()
    #expect(child.text == "first line\nsecond\ndone\n")

    let (ended, text) = try await Self.run("cat; echo end", input: .nullDevice)
    #expect(ended.status == 0)
    #expect(text == "end\n")
  }

  @Test("an executable that is not there: an error naming it, nothing started")
  func missingExecutable() throws {
    #expect {
      try ChildProcess(executable: URL(fileURLWithPath: "/nonexistent/intentmesh-child"), arguments: [])
    } throws: { error in
      "\(error)".contains("/nonexistent/intentmesh-child") && "\(error)".contains("No such file")
    }
  }

  @Test("a child started by many tasks at once, each reaped once, with 500 descriptors open here")
  func manyAtOnce() async throws {
    let open500 = (0..<500).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
    defer { for descriptor in open500 { close(descriptor) } }
    let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
      for index in 0..<40 {
        group.addTask {
          let child = try ChildProcess(executable: Self.shell, arguments: ["-c", "exit \(index % 7)"])
          return await child.exited().status
        }
      }
      return try await group.reduce(into: [Int32]()) { $0.append($1) }
    }
    #expect(statuses.sorted() == (0..<40).map { Int32($0 % 7) }.sorted())
  }
}
