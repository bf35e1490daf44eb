#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Lines a process prints for people and scripts ("… serving on 127.0.0.1:50061"), written and
/// flushed at once so that a parent reading the pipe sees them immediately. Plain C stdio: the
/// server runtime does not load Foundation.
package enum ProcessOutput {
  /// Writes `line` and a newline to standard output, then flushes it.
  package static func standardOutput(_ line: String) {
    write(line, to: stdout)
  }

  /// Writes `line` and a newline to standard error, then flushes it.
  package static func standardError(_ line: String) {
    write(line, to: stderr)
  }

  private static func write(_ line: String, to stream: UnsafeMutablePointer<FILE>?) {
    fputs(line + "\n", stream)
    fflush(stream)
  }
}
