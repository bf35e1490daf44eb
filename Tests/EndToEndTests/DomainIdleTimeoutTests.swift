import Foundation
import IntentsKitTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The domains close connections that carry no call, as the gateway's relay does.
@Suite("A domain's idle connections", .serialized)
struct DomainIdleTimeoutTests {
  @Test("a connection without a call gets GOAWAY NO_ERROR after --idle-timeout-seconds")
  func idleConnection() async throws {
    let file = TemporaryDatabaseFile("idle")
    defer { file.remove() }
    let service = try await ServiceProcess(
      "messaging-service", arguments: ["--port", "0", "--database", file.path, "--idle-timeout-seconds", "1"])
    let fd = try #require(LoopbackSocket.connect(port: service.port))
    // The client preface and an empty SETTINGS frame, then nothing.
    let hello = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
    #expect(hello.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) } == hello.count)
    var timeout = timeval(tv_sec: 8, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let started = ContinuousClock.now
    var received: [UInt8] = []
    var goAwayCode: UInt32?
    reading: while ContinuousClock.now - started < .seconds(8) {
      var chunk = [UInt8](repeating: 0, count: 4096)
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      received += chunk[0..<count]
      // Walk the frames received so far.
      var offset = 0
      while received.count - offset >= 9 {
        let length = Int(received[offset]) << 16 | Int(received[offset + 1]) << 8 | Int(received[offset + 2])
        guard received.count - offset >= 9 + length else { break }
        if received[offset + 3] == 7, length >= 8 {
          goAwayCode = received[(offset + 13)..<(offset + 17)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
          break reading
        }
        offset += 9 + length
      }
    }
    let waited = ContinuousClock.now - started
    #expect(goAwayCode == 0, "received \(received.count) bytes")
    #expect(waited >= .milliseconds(800) && waited < .seconds(6), "\(waited)")
    close(fd)
    _ = try await service.stop(signal: SIGTERM)
  }
}
