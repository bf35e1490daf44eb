#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A blocking TCP socket to a port on a loopback address (127.0.0.1 unless told), for tests that
/// speak a protocol byte by byte.
package enum LoopbackSocket {
  /// A connected socket's descriptor, or nil when nothing accepts on `port`. The caller closes it.
  package static func connect(host: String = "127.0.0.1", port: Int, receiveBuffer: Int32? = nil) -> Int32? {
    #if canImport(Glibc)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { return nil }
    if var size = receiveBuffer {
      // Before connecting, so the window the peer is offered is as small as the buffer.
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr(host)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        #if canImport(Glibc)
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        #else
          Darwin.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        #endif
      }
    }
    guard connected == 0 else {
      close(fd)
      return nil
    }
    return fd
  }
}
