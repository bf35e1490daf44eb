internal import IntentMeshProtos
internal import SwiftProtobuf
internal import Foundation

/// Writes 8-bit grayscale PNG images. The image data is a zlib stream of stored (uncompressed)
/// deflate blocks: valid for every PNG reader and needing no compression library.
enum PNGEncoder {
  static func grayscale(width: Int, height: Int, pixels: [UInt8]) -> Data {
    precondition(pixels.count == width * height, "one byte per pixel")
    var raw = [UInt8]()
    raw.reserveCapacity((width + 1) * height)
    for row in 0..<height {
      raw.append(0)  // filter type None
      raw.append(contentsOf: pixels[(row * width)..<((row + 1) * width)])
    }
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    var header = [UInt8]()
    header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
    header += [8, 0, 0, 0, 0]  // bit depth 8, grayscale, deflate, adaptive filtering, no interlace
    png += chunk("IHDR", header)
    png += chunk("IDAT", zlibStored(raw))
    png += chunk("IEND", [])
    return Data(png)
  }

  static func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
      let length = min(65_535, data.count - offset)
      let final: UInt8 = offset + length == data.count ? 1 : 0
      out.append(final)
      out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
      out += data[offset..<(offset + length)]
      offset += length
    } while offset < data.count
    return out + bigEndian(adler32(data))
  }

  static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
    let typeBytes = Array(type.utf8)
    return bigEndian(UInt32(body.count)) + typeBytes + body + bigEndian(crc32(typeBytes + body))
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
  }

  static func adler32(_ data: [UInt8]) -> UInt32 {
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in data {
      a = (a + UInt32(byte)) % 65_521
      b = (b + a) % 65_521
    }
    return (b << 16) | a
  }

  private static let crcTable: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    return value
  }

  static func crc32(_ data: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    return crc ^ 0xFFFF_FFFF
  }
}
