internal import GRPCCore
internal import NIOCore
internal import NIOHPACK
internal import ProtoJSON

/// An answer of the gateway's own server as gRPC over HTTP/2 carries it: the response headers,
/// each message length-prefixed, the trailers with `grpc-status` and a percent-encoded
/// `grpc-message` (gRPC's PROTOCOL-HTTP2). Values that change from call to call are not indexed:
/// they would fill the client connection's HPACK table.
enum GRPCResponseHeaders {
  /// The response headers with `metadata`.
  static func headers(_ metadata: Metadata) -> HPACKHeaders {
    var headers: HPACKHeaders = [":status": "200", "content-type": "application/grpc"]
    add(metadata, to: &headers)
    return headers
  }

  /// The trailers with `status` and `metadata`; `trailersOnly`: the answer's only HEADERS, which
  /// then carry the response headers' pseudo-header and content type too.
  static func trailers(_ status: Status, _ metadata: Metadata, trailersOnly: Bool) -> HPACKHeaders {
    var headers: HPACKHeaders = trailersOnly ? [":status": "200", "content-type": "application/grpc"] : [:]
    headers.add(name: "grpc-status", value: String(status.code.rawValue))
    if !status.message.isEmpty {
      headers.add(name: "grpc-message", value: percentEncoded(status.message), indexing: .nonIndexable)
    }
    add(metadata, to: &headers)
    return headers
  }

  /// `message` with its 5-byte prefix (not compressed).
  static func frame(_ message: ByteBuffer) -> ByteBuffer {
    var framed = ByteBuffer()
    framed.reserveCapacity(5 + message.readableBytes)
    framed.writeInteger(UInt8(0))
    framed.writeInteger(UInt32(message.readableBytes))
    var message = message
    framed.writeBuffer(&message)
    return framed
  }

  /// gRPC's percent-encoding of a status message: bytes outside visible ASCII and space, and '%'.
  static func percentEncoded(_ message: String) -> String {
    let utf8 = message.utf8
    guard utf8.contains(where: { $0 < 0x20 || $0 > 0x7E || $0 == UInt8(ascii: "%") }) else { return message }
    let hex = Array("0123456789ABCDEF".utf8)
    var encoded: [UInt8] = []
    encoded.reserveCapacity(utf8.count)
    for byte in utf8 {
      if byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "%") {
        encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      } else {
        encoded.append(byte)
      }
    }
    return String(decoding: encoded, as: UTF8.self)
  }

  private static func add(_ metadata: Metadata, to headers: inout HPACKHeaders) {
    for entry in metadata {
      let name = entry.key.lowercased()
      switch entry.value {
      case .string(let text): headers.add(name: name, value: text, indexing: .nonIndexable)
      case .binary(let bytes): headers.add(name: name, value: ProtoJSONCodec.base64(bytes), indexing: .nonIndexable)
      }
    }
  }
}
