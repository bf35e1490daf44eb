internal import MessagingProtos
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import CQRencode
internal import Foundation

/// A QR code's modules, made by libqrencode (Debian's `libqrencode`).
struct QRCode: Sendable, Equatable {
  /// Modules per side.
  let size: Int
  /// Row-major, true for a dark module.
  let modules: [Bool]

  /// Encodes `text` (8-bit mode, error correction M).
  init(encoding text: String) throws {
    guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
      throw QRCodeError.cannotEncode(length: text.utf8.count)
    }
    defer { QRcode_free(code) }
    let width = Int(code.pointee.width)
    let data = UnsafeBufferPointer(start: code.pointee.data, count: width * width)
    self.size = width
    // libqrencode sets bit 0 of each byte for a dark module.
    self.modules = data.map { $0 & 1 == 1 }
  }

  func isDark(row: Int, column: Int) -> Bool { modules[row * size + column] }

  /// A grayscale PNG: `scale` pixels per module and a four-module quiet zone.
  func png(scale: Int = 6) -> Data {
    let quiet = 4
    let side = (size + 2 * quiet) * scale
    var pixels = [UInt8](repeating: 255, count: side * side)
    for row in 0..<size {
      for column in 0..<size where isDark(row: row, column: column) {
        for y in 0..<scale {
          let start = ((row + quiet) * scale + y) * side + (column + quiet) * scale
          for x in 0..<scale { pixels[start + x] = 0 }
        }
      }
    }
    return PNGEncoder.grayscale(width: side, height: side, pixels: pixels)
  }
}

enum QRCodeError: Error, Equatable {
  case cannotEncode(length: Int)
}
