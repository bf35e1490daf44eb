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
final class RawHTTP2Connection: RawLoopbackConnection, @unchecked Sendable {
  struct Frame: CustomStringConvertible, Sendable {
    var type: UInt8
    var flags: UInt8
    var stream: UInt32
    var payload: [UInt8]

    var description: String { "frame(type \(type), flags \(flags), stream \(stream), \(payload.count) bytes)" }
  }

  static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

  private var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
  private var decoder = HPACKDecoder(allocator: ByteBufferAllocator())

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
      switch readSome() {
      case .bytes: continue
      case .closed: return nil
      case .nothingYet: guard Date() < deadline else { throw Failure.timedOut }
      }
    }
  }

  /// Frames until one matches `stop` (included), skipping none.
  func readFrames(within seconds: Double = 10, until stop: (Frame) -> Bool) throws -> [Frame] {
    var frames: [Frame] = []
    while let frame = try readFrame(within: seconds) {
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
