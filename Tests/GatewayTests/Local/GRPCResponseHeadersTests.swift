import GRPCCore
import NIOCore
import NIOHPACK
import Testing

@testable import Gateway

/// An answer of the gateway's own server written as gRPC over HTTP/2 carries it.
@Suite("Gateway in-process server: an answer's headers and frames")
struct GRPCResponseHeadersTests {
  @Test("headers carry the metadata (binary values in base64); trailers the status, alone or after headers")
  func headers() {
    var metadata: Metadata = ["X-Request-ID": "r1"]
    metadata.addBinary([0xFF, 0x00], forKey: "trace-bin")
    let headers = GRPCResponseHeaders.headers(metadata)
    #expect(headers.first(name: ":status") == "200" && headers.first(name: "content-type") == "application/grpc")
    #expect(headers.first(name: "x-request-id") == "r1")
    #expect(headers.first(name: "trace-bin") == "/wA=")

    let only = GRPCResponseHeaders.trailers(Status(code: .notFound, message: "no INFooIntent"), [:], trailersOnly: true)
    #expect(only.first(name: ":status") == "200" && only.first(name: "grpc-status") == "5")
    #expect(only.first(name: "grpc-message") == "no INFooIntent")
    let after = GRPCResponseHeaders.trailers(Status(code: .ok, message: ""), ["k": "v"], trailersOnly: false)
    #expect(after.first(name: ":status") == nil && after.first(name: "grpc-status") == "0")
    #expect(after.first(name: "grpc-message") == nil && after.first(name: "k") == "v")
  }

  @Test("a status message is percent-encoded past visible ASCII, and '%' itself")
  func percentEncoding() {
    #expect(GRPCResponseHeaders.percentEncoded("plain text: ok") == "plain text: ok")
    #expect(GRPCResponseHeaders.percentEncoded("100% sûr\n") == "100%25 s%C3%BBr%0A")
  }

  @Test("a message is framed with its 5-byte prefix")
  func frame() {
    let framed = GRPCResponseHeaders.frame(ByteBuffer(bytes: [7, 8, 9]))
    #expect(Array(framed.readableBytesView) == [0, 0, 0, 0, 3, 7, 8, 9])
  }
}
