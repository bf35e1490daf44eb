import Foundation
import IntentsKitTesting
import NIOCore
import NIOHPACK

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A client that writes HTTP/2 frames byte by byte on a blocking loopback socket: for what
/// generated clients never send (CONTINUATION, padding, unknown frame types, protocol errors, a
/// zero window) and to read exactly what the relay answers.
final class RawHTTP2Connection {
  struct Frame: CustomStringConvertible {
    var type: UInt8
    var flags: UInt8
    var stream: UInt32
    var payload: [UInt8]

    var description: String { "frame(type \(type), flags \(flags), stream \(stream), \(payload.count) bytes)" }
  }

  enum Failure: Error { case connect, closed, timedOut }

  static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

  private let socket: Int32
  private var received: [UInt8] = []
  private var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
  private var decoder = HPACKDecoder(allocator: ByteBufferAllocator())

  /// - Parameter receiveBuffer: the socket's SO_RCVBUF, for a peer that takes little.
  init(port: Int, receiveBuffer: Int32? = nil) throws {
    guard let socket = LoopbackSocket.connect(port: port, receiveBuffer: receiveBuffer) else { throw Failure.connect }
    self.socket = socket
    var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
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

  /// Writes as much of `bytes` as the peer takes within `seconds`; returns how many it took (fewer
  /// than all when the peer stopped reading).
  func writeWhileRead(_ bytes: [UInt8], within seconds: Double) -> Int {
    writeWhileRead(repeating: bytes, times: 1, within: seconds)
  }

  /// Writes `chunk` `times` times over, as far as the peer takes it within `seconds`; returns the
  /// bytes it took.
  func writeWhileRead(repeating chunk: [UInt8], times: Int, within seconds: Double) -> Int {
    let deadline = Date().addingTimeInterval(seconds)
    let total = chunk.count * times
    var offset = 0
    while offset < total && Date() < deadline {
      let sent = chunk[(offset % chunk.count)...].withUnsafeBytes {
        send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
      }
      if sent > 0 {
        offset += sent
      } else if errno == EAGAIN || errno == EWOULDBLOCK {
        usleep(10_000)
      } else {
        break
      }
    }
    return offset
  }

  /// Reads and drops whatever comes until the peer closes the connection; false if it is still
  /// open after `seconds`.
  func discardUntilClosed(within seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while Date() < deadline {
      let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
      if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return true }
    }
    return false
  }

  /// The bytes of one frame.
  static func frame(type: UInt8, flags: UInt8 = 0, stream: UInt32, payload: [UInt8] = []) -> [UInt8] {
    let length = payload.count
    return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags]
      + withUnsafeBytes(of: stream.bigEndian, Array.init) + payload
  }

  /// The preface and an empty SETTINGS frame, or one with `settings`.
  func start(settings: [(UInt16, UInt32)] = []) {
    var payload: [UInt8] = []
    for (id, value) in settings {
      payload += withUnsafeBytes(of: id.bigEndian, Array.init) + withUnsafeBytes(of: value.bigEndian, Array.init)
    }
    write(Self.preface + Self.frame(type: 4, stream: 0, payload: payload))
  }

  /// The HPACK encoding of `headers` on this connection.
  func headerBlock(_ headers: [(String, String)]) throws -> [UInt8] {
    var buffer = ByteBuffer()
    try encoder.encode(headers: HPACKHeaders(headers), to: &buffer)
    return Array(buffer.readableBytesView)
  }

  /// Decodes a header block the relay sent on this connection.
  func decode(_ block: [UInt8]) throws -> HPACKHeaders {
    var buffer = ByteBuffer(bytes: block)
    return try decoder.decodeHeaders(from: &buffer)
  }

  /// The next frame, or nil once the relay closed the connection; throws when none comes in time.
  func readFrame(within seconds: Double = 10) throws -> Frame? {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
      if received.count >= 9 {
        let length = Int(received[0]) << 16 | Int(received[1]) << 8 | Int(received[2])
        if received.count >= 9 + length {
          let stream = received[5..<9].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
          let frame = Frame(
            type: received[3], flags: received[4], stream: stream, payload: Array(received[9..<(9 + length)]))
          received.removeFirst(9 + length)
          return frame
        }
      }
      var chunk = [UInt8](repeating: 0, count: 65_536)
      let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
      if count == 0 { return nil }
      if count < 0 {
        guard errno == EAGAIN || errno == EWOULDBLOCK, Date() < deadline else {
          if errno == ECONNRESET { return nil }
          throw Failure.timedOut
        }
        continue
      }
      received += chunk[0..<count]
    }
  }

  /// Frames until one matches `stop` (included), skipping none.
  func readFrames(until stop: (Frame) -> Bool) throws -> [Frame] {
    var frames: [Frame] = []
    while let frame = try readFrame() {
      frames.append(frame)
      if stop(frame) { return frames }
    }
    throw Failure.closed
  }

  /// Whether no frame but those `ignoring` allows arrives within `seconds`.
  func staysQuiet(for seconds: Double, ignoring: (Frame) -> Bool) throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      do {
        guard let frame = try readFrame(within: 0.2) else { return false }
        if !ignoring(frame) { return false }
      } catch Failure.timedOut {
        continue
      }
    }
    return true
  }
}
