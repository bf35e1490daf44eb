@testable import ProtoJSON
import SwiftProtobuf
import Testing

/// Timestamps and durations as proto3 JSON spells them, through the codec's well-known types.
@Suite("Timestamp and Duration in proto3 JSON")
struct ProtoTimeTests {
  static let codec = ProtoJSONCodec(schema: ProtoSchema())

  func timestamp(_ text: String) throws -> (Int64, Int32) {
    let binary = try Self.codec.encode(.string(text), as: "google.protobuf.Timestamp")
    let back = try Self.codec.decode(binary, as: "google.protobuf.Timestamp")
    let message = try Google_Protobuf_Timestamp(serializedBytes: binary)
    _ = back
    return (message.seconds, message.nanos)
  }

  @Test(
    "RFC 3339 in, seconds and nanoseconds since 1970 out; offsets, fractions, leap days, before 1970",
    arguments: [
      ("1970-01-01T00:00:00Z", Int64(0), Int32(0)),
      ("2026-11-25T12:30:00.250Z", 1_795_609_800, 250_000_000),
      ("2026-11-25T13:30:00.25+01:00", 1_795_609_800, 250_000_000),
      ("2024-02-29T23:59:59.000000001Z", 1_709_251_199, 1),
      ("1969-12-31T23:59:59.5Z", -1, 500_000_000),
      ("0001-01-01T00:00:00Z", -62_135_596_800, 0),
      ("9999-12-31T23:59:59.999999999Z", 253_402_300_799, 999_999_999),
    ])
  func timestamps(text: String, seconds: Int64, nanos: Int32) throws {
    let (readSeconds, readNanos) = try timestamp(text)
    #expect(readSeconds == seconds)
    #expect(readNanos == nanos)
  }

  @Test("written in UTC with 0, 3, 6 or 9 fractional digits, as protoc does")
  func written() throws {
    func text(_ seconds: Int64, _ nanos: Int32) throws -> JSONValue {
      try Self.codec.decode(
        Google_Protobuf_Timestamp(seconds: seconds, nanos: nanos).serializedBytes() as [UInt8],
        as: "google.protobuf.Timestamp")
    }
    #expect(try text(0, 0) == .string("1970-01-01T00:00:00Z"))
    #expect(try text(1_795_609_800, 250_000_000) == .string("2026-11-25T12:30:00.250Z"))
    #expect(try text(-1, 500_000) == .string("1969-12-31T23:59:59.000500Z"))
    #expect(try text(1_709_251_199, 1) == .string("2024-02-29T23:59:59.000000001Z"))
  }

  @Test(
    "invalid times are refused",
    arguments: [
      "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "2026-11-25 12:30:00Z", "2026-11-25T24:00:00Z",
      "2026-11-25T12:30:00", "2026-11-25T12:30:00.Z", "2026-11-25T12:30:00.1234567890Z", "10000-01-01T00:00:00Z",
    ])
  func invalidTimes(text: String) {
    #expect(throws: ProtoJSONError.self) { try timestamp(text) }
  }

  @Test("durations: \"1.5s\", negative, whole; written back with 0, 3, 6 or 9 digits")
  func durations() throws {
    for (text, seconds, nanos, written) in [
      ("1.5s", Int64(1), Int32(500_000_000), "1.500s"), ("-0.000001s", 0, -1000, "-0.000001s"),
      ("3s", 3, 0, "3s"), ("-2.000000007s", -2, -7, "-2.000000007s"),
    ] {
      let binary = try Self.codec.encode(.string(text), as: "google.protobuf.Duration")
      let message = try Google_Protobuf_Duration(serializedBytes: binary)
      #expect(message.seconds == seconds)
      #expect(message.nanos == nanos)
      #expect(try Self.codec.decode(binary, as: "google.protobuf.Duration") == .string(written))
    }
    // "-3.-000500s" and "3.+5s" were taken (a sign in the fraction), found by scripts/fuzz, proto-json.
    for bad in ["1.5", "s", "1.s", "1.5m", "--1s", "-3.-000500s", "3.+5s", "3.5 s"] {
      #expect(throws: ProtoJSONError.self) { try Self.codec.encode(.string(bad), as: "google.protobuf.Duration") }
    }
  }
}
