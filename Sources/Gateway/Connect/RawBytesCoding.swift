internal import GRPCCore

/// Messages passed as their serialized bytes: the Connect side calls gRPC methods whose types it
/// knows only by their descriptors.
struct RawBytesSerializer: MessageSerializer {
  func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }
}

struct RawBytesDeserializer: MessageDeserializer {
  func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> [UInt8] {
    serializedMessageBytes.withUnsafeBytes { Array($0) }
  }
}
