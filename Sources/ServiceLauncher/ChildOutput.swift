internal import Foundation
internal import Synchronization

/// What a child process prints on standard output and error, read from one pipe on a thread of its
/// own with blocking reads until end of file, and the pipe closed then. Not `readabilityHandler`:
/// on Linux that is a libdispatch read source, and one cancelled while its pipe closes can crash
/// libdispatch's manager thread (`_dispatch_event_loop_drain`, as in swiftlang/swift-subprocess#47)
/// and with it the whole test run.
package final class ChildOutput: Sendable {
  private let value = Mutex("")
  private let finished = Atomic<Bool>(false)

  private init() {}

  /// Reads `descriptor` (the read end of the child's output pipe, which it owns from now on) into
  /// the returned value, and writes what it reads to `file` too, if given.
  static func reading(_ descriptor: Int32, copyingTo file: FileHandle? = nil) -> ChildOutput {
    let output = ChildOutput()
    Thread {
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        let chunk = buffer[..<count]
        file?.write(Data(chunk))
        output.value.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
      }
      close(descriptor)
      try? file?.close()
      output.finished.store(true, ordering: .releasing)
    }.start()
    return output
  }

  /// Everything printed so far.
  package var text: String { value.withLock { $0 } }

  /// Whether the output has ended: the child, and every process that shares its output, exited.
  package var isFinished: Bool { finished.load(ordering: .acquiring) }
}
