/// A text's UTF-8 compared with bytes in place, eight at a time: the writer compares every table's
/// name after each of its writes (`SQLiteHandle.readVersions`), and every statement's text is
/// compared with the one kept for its digest (`PreparedStatements`).
enum TextBytes {
  /// Whether `text`'s UTF-8 is `bytes`.
  static func equal(_ text: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var text = text
    return text.withUTF8 { utf8 in
      guard utf8.count == bytes.count else { return false }
      let text = UnsafeRawBufferPointer(utf8)
      var offset = 0
      while offset + 8 <= text.count {
        let word = text.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        guard word == bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
        offset += 8
      }
      while offset < text.count {
        guard text[offset] == bytes[offset] else { return false }
        offset += 1
      }
      return true
    }
  }
}
