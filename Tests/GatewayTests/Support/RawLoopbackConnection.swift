import Foundation
import IntentsKitTesting

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A blocking loopback socket that writes exactly the bytes it is given and reads with a short
/// timeout: the ground the raw HTTP/1.1 and HTTP/2 test clients stand on. A test calls what may
/// wait on the socket through `offThePool`, so that no thread of Swift's cooperative pool (one per
/// core) is blocked while the servers under test need it.
///
/// @unchecked Sendable: a test uses a connection from one task at a time, and `offThePool` hands
/// it to one thread and waits for that thread to finish with it.
class RawLoopbackConnection: @unchecked Sendable {
  enum Failure: Error { case connect, closed, timedOut, malformed(String) }

  let socket: Int32
  /// Bytes read and not yet taken.
  var received: [UInt8] = []

  /// - Parameter receiveBuffer: the socket's SO_RCVBUF, for a peer that takes little.
  init(port: Int, receiveBuffer: Int32? = nil) throws {
    guard let socket = LoopbackSocket.connect(port: port, receiveBuffer: receiveBuffer) else { throw Failure.connect }
    self.socket = socket
    var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    // A peer that stops reading cannot hold a write (and the thread it runs on) for ever.
    var writeTimeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &writeTimeout, socklen_t(MemoryLayout<timeval>.size))
  }

  deinit { close(socket) }

  func write(_ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      guard sent > 0 else { return }
      offset += sent
    }
  }

  /// What one read brought.
  enum Read { case bytes, nothingYet, closed }

  /// Reads what has arrived (waiting at most 200 ms) into `received`.
  func readSome() -> Read {
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
    if count > 0 {
      received += chunk[..<count]
      return .bytes
    }
    return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? .nothingYet : .closed
  }

  /// Reads and drops whatever comes until the peer closes the connection; false if it is still
  /// open after `seconds`.
  func discardUntilClosed(within seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if readSome() == .closed { return true }
      received.removeAll()
    }
    return false
  }
}
