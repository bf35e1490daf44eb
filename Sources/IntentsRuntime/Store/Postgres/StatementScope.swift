/// What a PostgreSQL statement's text says about the tables it touches, for the read cache
/// (`PostgresReadCache`): the schema's tables it names, and whether it may write. Read from the
/// words of the text — every run of letters, digits and underscores, folded to lower case as
/// PostgreSQL folds unquoted names — so it errs one way only: a table a statement names in a
/// comment or a string counts as touched, and any statement with a writing verb anywhere counts as
/// writing every table it names (`SELECT … FOR UPDATE` too). The domains name their tables
/// unquoted and reach none through views or functions; a statement that names none of the
/// schema's tables is one the cache cannot follow (`namesNoTable`).
struct StatementScope: Equatable, Sendable {
  /// The schema's tables the statement names, sorted, each once.
  private(set) var tables: [String] = []
  /// Whether the statement may change rows or the schema.
  private(set) var writes = false

  /// Whether no table of the schema is named: what such a statement reads cannot be followed.
  var namesNoTable: Bool { tables.isEmpty }

  /// The words that make a statement a write.
  static let writingVerbs: Set<String> = ["insert", "update", "delete", "truncate", "merge", "create", "alter", "drop"]

  /// The scope of `text` among `knownTables` (lower-case names).
  init(of text: String, knownTables: Set<String>) {
    var found: Set<String> = []
    var word: [UInt8] = []
    word.reserveCapacity(64)
    func finish() {
      guard !word.isEmpty else { return }
      let name = String(decoding: word, as: UTF8.self)
      if knownTables.contains(name) {
        found.insert(name)
      } else if !writes, Self.writingVerbs.contains(name) {
        writes = true
      }
      word.removeAll(keepingCapacity: true)
    }
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): word.append(byte | 0x20)
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"),
        0x80...0xFF:
        word.append(byte)
      default: finish()
      }
    }
    finish()
    tables = found.sorted()
  }
}
