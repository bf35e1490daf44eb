/// A connection's prepared statements by their SQL text (`SQLiteHandle`): open addressing on the
/// text's digest (`StatementText.digest`), the text itself compared on a hit, so two texts with one
/// digest are still told apart. A `Dictionary` keyed by the text hashed the digest again (SipHash)
/// and compared the texts through `String`'s general path: ~750 instructions a lookup, ~30
/// lookups a payment, where this costs about the digest.
struct PreparedStatements<Statement> {
  private struct Slot {
    let digest: UInt64
    let sql: String
    let statement: Statement
  }

  private static var initialSlots: Int { 64 }
  /// Never more than half full, so a probe ends at an empty slot soon.
  private var slots: [Slot?] = Array(repeating: nil, count: initialSlots)
  private(set) var count = 0

  /// The statement kept for `sql`, whose digest is `digest`.
  func find(_ sql: String, digest: UInt64) -> Statement? {
    let mask = slots.count - 1
    var index = Int(truncatingIfNeeded: digest) & mask
    while let slot = slots[index] {
      if slot.digest == digest, Self.same(slot.sql, sql) { return slot.statement }
      index = (index + 1) & mask
    }
    return nil
  }

  /// Keeps `statement` for `sql` (not kept yet), whose digest is `digest`.
  mutating func insert(_ statement: Statement, for sql: String, digest: UInt64) {
    if (count + 1) * 2 > slots.count {
      let kept = slots
      slots = Array(repeating: nil, count: kept.count * 2)
      for case let slot? in kept { place(slot) }
    }
    place(Slot(digest: digest, sql: sql, statement: statement))
    count += 1
  }

  /// Every statement kept.
  var all: [Statement] { slots.compactMap { $0?.statement } }

  mutating func removeAll() {
    slots = Array(repeating: nil, count: Self.initialSlots)
    count = 0
  }

  private mutating func place(_ slot: Slot) {
    let mask = slots.count - 1
    var index = Int(truncatingIfNeeded: slot.digest) & mask
    while slots[index] != nil { index = (index + 1) & mask }
    slots[index] = slot
  }

  /// Whether two texts have the same bytes: compared in place (`TextBytes`).
  private static func same(_ kept: String, _ sql: String) -> Bool {
    sql.utf8.withContiguousStorageIfAvailable { TextBytes.equal(kept, UnsafeRawBufferPointer($0)) } ?? (kept == sql)
  }
}
