import Foundation
import NIOCore
import ServiceLauncher
import Testing

@testable import Gateway

/// The compressed request messages the gateway's own server takes (gzip, deflate), inflated whole
/// and never past the limit.
@Suite("Gateway in-process server: compressed messages")
struct MessageDecompressionTests {
  /// `text` repeated `times`, compressed by Python's zlib (another build of zlib than the one
  /// inflating it), as base64 on its standard output.
  static func compressed(_ text: String, times: Int, gzip: Bool) async throws -> [UInt8] {
    let compress = gzip ? "gzip.compress" : "zlib.compress"
    let script =
      "import sys,base64,gzip,zlib; print(base64.b64encode(\(compress)(sys.argv[1].encode() * int(sys.argv[2]))).decode())"
    let child = try ChildProcess(
      executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: ["python3", "-c", script, text, "\(times)"],
      input: .nullDevice)
    #expect(await child.exited().status == 0)
    await child.outputEnded()
    return Array(try #require(Data(base64Encoded: child.text.trimmingCharacters(in: .whitespacesAndNewlines))))
  }

  @Test("gzip and deflate (zlib's format) inflate to the bytes compressed", arguments: [true, false])
  func inflates(gzip: Bool) async throws {
    let original = Array(String(repeating: "send Celestra a message saying hi ", count: 3_000).utf8)
    let squeezed = try await Self.compressed("send Celestra a message saying hi ", times: 3_000, gzip: gzip)
    #expect(squeezed.count < 1_000)
    let decompression: MessageDecompression = gzip ? .gzip : .deflate
    let inflated = try decompression.inflate(ByteBuffer(bytes: squeezed), limit: 200_000)
    #expect(Array(inflated.readableBytesView) == original)
  }

  @Test("a message that would inflate past the limit is refused; so are bytes that are no such stream")
  func refuses() async throws {
    let bomb = try await Self.compressed("0", times: 5_000_000, gzip: true)
    #expect(bomb.count < 10_000)
    #expect(throws: MessageDecompression.Failure.tooLarge(limit: 4096)) {
      _ = try MessageDecompression.gzip.inflate(ByteBuffer(bytes: bomb), limit: 4096)
    }
    #expect(throws: MessageDecompression.Failure.corrupt) {
      _ = try MessageDecompression.deflate.inflate(ByteBuffer(bytes: bomb), limit: 10_000_000)
    }
    #expect(throws: MessageDecompression.Failure.corrupt) {
      _ = try MessageDecompression.gzip.inflate(
        ByteBuffer(bytes: Array(bomb.prefix(bomb.count / 2))), limit: 10_000_000)
    }
    #expect(MessageDecompression(encoding: "br") == nil)
    #expect(MessageDecompression.isIdentity(nil) && MessageDecompression.isIdentity("identity"))
  }
}
