/// A statement's SQL text reduced to the key of a connection's prepared statements
/// (`PreparedStatements`): a digest of its bytes taken eight at a time. SQLKit builds the text anew
/// for every run, so each run looks it up (~30 a payment). The text is the application's own —
/// values are bound apart from it — so the digest need not withstand chosen collisions; two texts
/// with one digest are still told apart by comparing them.
enum StatementText {
  /// A 64-bit digest of `sql`'s UTF-8 bytes: each 8-byte word (the tail padded with zeros) mixed
  /// in by a multiply and a shift.
  static func digest(of sql: String) -> UInt64 {
    let contiguous = sql.utf8.withContiguousStorageIfAvailable { Self.digest(of: UnsafeRawBufferPointer($0)) }
    return contiguous ?? Array(sql.utf8).withUnsafeBytes { Self.digest(of: $0) }
  }

  private static func digest(of bytes: UnsafeRawBufferPointer) -> UInt64 {
    var digest = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
    var offset = 0
    while offset + 8 <= bytes.count {
      digest = mix(digest, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      offset += 8
    }
    if offset < bytes.count {
      var tail: UInt64 = 0
      for (shift, byte) in bytes[offset...].enumerated() { tail |= UInt64(byte) << (8 * UInt64(shift)) }
      digest = mix(digest, tail)
    }
    return digest
  }

  private static func mix(_ digest: UInt64, _ word: UInt64) -> UInt64 {
    let mixed = (digest ^ word) &* 0xFF51_AFD7_ED55_8CCD
    return mixed ^ (mixed >> 32)
  }
}
