internal import CChildProcess
package import Foundation
internal import Synchronization

/// A child process started with `posix_spawn` (`intentmesh_spawn`): standard input inherited, from
/// /dev/null or from a pipe this side writes to; standard output and error together, read into a
/// `ChildOutput`, inherited or discarded; no other descriptor of this process; a process group of
/// its own. It is reaped by whoever asks first whether it still runs (`waitpid` for its pid only).
///
/// Not Foundation's `Process`, which on Linux crashes now and then in a process with many
/// descriptors open (see `intentmesh_spawn`) — a test run's, say.
package final class ChildProcess: Sendable {
  package enum Input: Sendable {
    case inherited
    case nullDevice
    /// A pipe: `write(toStandardInput:)` and `closeStandardInput()`.
    case pipe
  }

  package enum Output: Sendable {
    /// Read into `output` (standard output and error in the order written), and also copied to
    /// `copyingTo` if given.
    case captured(copyingTo: FileHandle? = nil)
    case inherited
    case nullDevice
  }

  package enum TerminationReason: Sendable, Equatable {
    case exit
    case uncaughtSignal
  }

  /// How it ended: its exit code, or the signal that ended it.
  package struct Termination: Sendable, Equatable {
    package let reason: TerminationReason
    package let status: Int32
  }

  /// Why it could not be started.
  package struct SpawnFailure: Error, CustomStringConvertible {
    package let executable: String
    package let code: Int32
    package var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
  }

  package let processIdentifier: Int32
  /// What it printed, when its output is captured.
  package let output: ChildOutput?
  private let termination = Mutex<Termination?>(nil)
  /// The write end of its standard input's pipe, until closed; -1 without one.
  private let standardInput: Mutex<Int32>

  /// Starts `executable` with `arguments`, and `environment` over this process's own.
  package init(
    executable: URL, arguments: [String], environment: [String: String] = [:], input: Input = .inherited,
    output: Output = .captured()
  ) throws {
    var opened: [Int32] = []
    defer { for descriptor in opened { close(descriptor) } }
    func pipe() throws -> (read: Int32, write: Int32) {
      var ends: [Int32] = [-1, -1]
      guard intentmesh_pipe(&ends) == 0 else { throw SpawnFailure(executable: executable.path, code: errno) }
      return (ends[0], ends[1])
    }
    func nullDevice(_ flags: Int32) throws -> Int32 {
      let descriptor = open("/dev/null", flags | O_CLOEXEC)
      guard descriptor >= 0 else { throw SpawnFailure(executable: executable.path, code: errno) }
      return descriptor
    }

    var childInput: Int32 = -1
    var inputWriter: Int32 = -1
    switch input {
    case .inherited: break
    case .nullDevice:
      childInput = try nullDevice(O_RDONLY)
      opened.append(childInput)
    case .pipe:
      let ends = try pipe()
      childInput = ends.read
      opened.append(ends.read)
      inputWriter = ends.write
    }
    var childOutput: Int32 = -1
    var outputReader: Int32 = -1
    var copy: FileHandle?
    switch output {
    case .inherited: break
    case .nullDevice:
      childOutput = try nullDevice(O_WRONLY)
      opened.append(childOutput)
    case .captured(let file):
      let ends = try pipe()
      childOutput = ends.write
      opened.append(ends.write)
      outputReader = ends.read
      copy = file
    }

    let environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    var pid: pid_t = 0
    let status = Self.withCStrings([executable.path] + arguments) { argv in
      Self.withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in
        intentmesh_spawn(&pid, executable.path, argv, envp, childInput, childOutput)
      }
    }
    guard status == 0 else {
      for descriptor in [inputWriter, outputReader] where descriptor >= 0 { close(descriptor) }
      throw SpawnFailure(executable: executable.path, code: status)
    }
    processIdentifier = pid
    standardInput = Mutex(inputWriter)
    // The child's ends are closed here (`opened`): the reader sees the end of its output once the
    // child, and any child of its own, has exited.
    self.output = outputReader >= 0 ? ChildOutput.reading(outputReader, copyingTo: copy) : nil
  }

  deinit { closeStandardInput() }

  private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
  }

  /// How it ended; nil while it runs. Reaps it once it has exited.
  package var ended: Termination? {
    termination.withLock { termination in
      if let termination { return termination }
      var status: Int32 = 0
      let reaped = waitpid(processIdentifier, &status, WNOHANG)
      if reaped == processIdentifier {
        let signal = intentmesh_exit_signal(status)
        termination =
          signal != 0
          ? Termination(reason: .uncaughtSignal, status: signal)
          : Termination(reason: .exit, status: intentmesh_exit_code(status))
      } else if reaped < 0, errno == ECHILD {
        // Reaped by someone else: it has ended, how is not known.
        termination = Termination(reason: .exit, status: -1)
      }
      return termination
    }
  }

  package var isRunning: Bool { ended == nil }

  /// What it printed so far, when its output is captured.
  package var text: String { output?.text ?? "" }

  /// Waits until its captured output has ended (it and every process sharing that output exited).
  package func outputEnded() async {
    while let output, !output.isFinished { try? await Task.sleep(for: .milliseconds(5)) }
  }

  /// Its exit code, or the signal that ended it; -1 while it runs.
  package var terminationStatus: Int32 { ended?.status ?? -1 }

  package var terminationReason: TerminationReason { ended?.reason ?? .exit }

  /// Blocks the calling thread until it has exited.
  package func waitUntilExit() {
    while isRunning { usleep(5_000) }
  }

  /// Waits, without blocking a thread, until it has exited.
  package func exited() async -> Termination {
    while true {
      if let ended { return ended }
      try? await Task.sleep(for: .milliseconds(10))
    }
  }

  /// Sends it SIGTERM, if it still runs.
  package func terminate() {
    if isRunning { kill(processIdentifier, SIGTERM) }
  }

  /// Writes `text` to its standard input (a pipe: `Input.pipe`); false when that is closed or
  /// the child no longer reads it.
  @discardableResult
  package func write(toStandardInput text: String) -> Bool {
    standardInput.withLock { descriptor in
      guard descriptor >= 0 else { return false }
      var bytes = Array(text.utf8)[...]
      while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return false }
        bytes = bytes.dropFirst(written)
      }
      return true
    }
  }

  /// Closes its standard input's pipe: it reads the end of its input.
  package func closeStandardInput() {
    standardInput.withLock { descriptor in
      if descriptor >= 0 { close(descriptor) }
      descriptor = -1
    }
  }
}
