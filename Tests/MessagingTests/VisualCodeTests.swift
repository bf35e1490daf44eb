import SwiftProtobuf
import MessagingProtos
import Foundation
import IntentMeshProtos
@testable import IntentsKit
@testable import Messaging
import IntentsKitTesting
import Testing

@Suite("INGetVisualCodeIntent")
struct VisualCodeTests {
  @Test(
    "an unknown type resolves to contact; payment and transit types are unsupported",
    arguments: [
      (VisualCodeType.unspecified, true), (.contact, true), (.sendPayment, false), (.requestPayment, false),
      (.bus, false),
    ])
  func resolveType(type: VisualCodeType, supported: Bool) async throws {
    try await MessagingFixture.with { fixture in
      let result = try await fixture.visualCode.resolveVisualCodeType(
        intent: .with { $0.visualCodeType = type }, context: fixture.context())
      if supported {
        #expect(result.successValue == .contact)
      } else {
        #expect(result.unsupportedReason != nil)
      }
    }
  }

  @Test("the image is a valid PNG of a QR code")
  func image() async throws {
    try await MessagingFixture.with { fixture in
      let response = try await fixture.handle(fixture.visualCode, .init())
      #expect(response.code == .success)
      let image = response.visualCodeImage
      #expect(image.contentType == "image/png")
      let png = try PNGFile(Array(image.data))
      #expect(png.width == Int(image.width) && png.height == Int(image.height))
      let code = try QRCode(encoding: "unicornchat://contact/diana?handle=diana@unicorn.chat")
      #expect(png.width == (code.size + 8) * 6)
      // The top-left finder pattern: a dark 7×7 ring with a dark 3×3 centre, after the quiet zone.
      let module = { (row: Int, column: Int) in png.pixel(x: (column + 4) * 6 + 3, y: (row + 4) * 6 + 3) == 0 }
      #expect((0..<7).allSatisfy { module(0, $0) && module(6, $0) && module($0, 0) && module($0, 6) })
      #expect(!module(1, 1) && module(3, 3) && !module(7, 7))
      #expect(png.pixel(x: 0, y: 0) == 255)
    }
  }

  @Test("accounts decide: none → app configuration required; signed out → app launch")
  func accounts() async throws {
    try await MessagingFixture.with { fixture in
      #expect(
        try await fixture.handle(fixture.visualCode, .init(), user: "nobody").code == .failureAppConfigurationRequired)
      #expect(try await fixture.handle(fixture.visualCode, .init(), user: "sleepy").code == .failureRequiringAppLaunch)
      let confirm = try await fixture.visualCode.confirm(intent: .init(), context: fixture.context())
      #expect(confirm.response.code == .ready)
    }
  }

  @Test("CRC-32 and Adler-32 match their reference values")
  func checksums() {
    #expect(PNGEncoder.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
    #expect(PNGEncoder.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
  }
}

/// A reader of the PNGs PNGEncoder writes: checks every chunk's CRC and inflates stored blocks.
struct PNGFile {
  let width: Int
  let height: Int
  let rows: [[UInt8]]

  struct Invalid: Error { let reason: String }

  init(_ bytes: [UInt8]) throws {
    guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
      throw Invalid(reason: "signature")
    }
    func be32(_ at: Int) -> Int {
      Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }
    var offset = 8
    var width = 0
    var height = 0
    var idat: [UInt8] = []
    while offset < bytes.count {
      let length = be32(offset)
      let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
      let body = Array(bytes[(offset + 8)..<(offset + 8 + length)])
      guard PNGEncoder.crc32(Array(bytes[(offset + 4)..<(offset + 8)]) + body) == UInt32(be32(offset + 8 + length))
      else {
        throw Invalid(reason: "crc of \(type)")
      }
      if type == "IHDR" {
        width = be32(offset + 8)
        height = be32(offset + 12)
        guard body[8] == 8, body[9] == 0 else { throw Invalid(reason: "not 8-bit grayscale") }
      }
      if type == "IDAT" { idat += body }
      offset += 12 + length
    }
    var raw: [UInt8] = []
    var position = 2
    while true {
      let final = idat[position] & 1
      let length = Int(idat[position + 1]) | Int(idat[position + 2]) << 8
      raw += idat[(position + 5)..<(position + 5 + length)]
      position += 5 + length
      if final == 1 { break }
    }
    guard
      PNGEncoder.adler32(raw)
        == UInt32(
          Int(idat[position]) << 24 | Int(idat[position + 1]) << 16 | Int(idat[position + 2]) << 8
            | Int(idat[position + 3]))
    else {
      throw Invalid(reason: "adler")
    }
    guard raw.count == (width + 1) * height else { throw Invalid(reason: "size") }
    self.width = width
    self.height = height
    self.rows = (0..<height).map { Array(raw[($0 * (width + 1) + 1)..<(($0 + 1) * (width + 1))]) }
  }

  func pixel(x: Int, y: Int) -> UInt8 { rows[y][x] }
}
