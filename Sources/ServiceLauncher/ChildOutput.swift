internal import Foundation
internal import Synchronization

/// What a child process prints on standard output and error, read from one pipe on a thread of its
/// own with blocking reads until end of file. Not `readabilityHandler`: on Linux that is a
/// libdispatch read source, and one cancelled while its pipe closes can crash libdispatch's manager
/// thread (`_dispatch_event_loop_drain`, as in swiftlang/swift-subprocess#47) and with it the whole
/// test run.
final class ChildOutput: Sendable {
  private let value = Mutex("")

  private init() {}

  /// Sends `process`'s standard output and error to a pipe read into the returned value (and written
  /// to `file` too, if given); call before `process.run()`.
  static func capture(_ process: Process, copyingTo file: FileHandle? = nil) -> ChildOutput {
    let output = ChildOutput()
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    let reading = pipe.fileHandleForReading
    Thread {
      while true {
        let chunk = reading.availableData
        if chunk.isEmpty {
          try? file?.close()
          return
        }
        file?.write(chunk)
        output.value.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
      }
    }.start()
    return output
  }

  /// Everything printed so far.
  var text: String { value.withLock { $0 } }
}
