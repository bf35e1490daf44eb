#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Lines a process prints for people and scripts ("… serving on 127.0.0.1:50061"), written straight
/// to the file descriptor (no buffer) so that a parent reading the pipe sees them at once. The server
/// runtime does this without Foundation.
package enum ProcessOutput {
  /// Writes `line` and a newline to standard output.
  package static func standardOutput(_ line: String) {
    write(line, to: STDOUT_FILENO)
  }

  /// Writes `line` and a newline to standard error.
  package static func standardError(_ line: String) {
    write(line, to: STDERR_FILENO)
  }

  private static func write(_ line: String, to descriptor: Int32) {
    var bytes = Array((line + "\n").utf8)
    bytes.withUnsafeMutableBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written > 0 {
          offset += written
        } else if written < 0 && errno == EINTR {
          continue
        } else {
          return  // a closed pipe: nobody is reading
        }
      }
    }
  }
}

#if canImport(Glibc)
  private let systemWrite = Glibc.write
#elseif canImport(Musl)
  private let systemWrite = Musl.write
#elseif canImport(Darwin)
  private let systemWrite = Darwin.write
#endif
