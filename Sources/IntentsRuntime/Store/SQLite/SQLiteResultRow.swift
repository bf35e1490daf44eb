internal import IntentsKit
internal import Synchronization
internal import SQLKit
internal import SQLiteKit
internal import SQLiteNIO

/// A row a statement of `SQLiteHandle` stepped: its values by column, decoded as SQLiteKit's rows
/// decode them (`SQLiteDataDecoder`). The types nearly every column is read as (text as `String`,
/// integers as `Int`/`Int64`, with or without `Optional`) take a direct path first: the decoder's
/// dynamic casts and protocol lookups cost more than the query itself on a small row.
struct SQLiteResultRow: SQLRow {
  /// The column names of a statement's rows, shared by all its rows.
  final class Columns: Sendable {
    let names: [String]
    /// Each name's first position, for a column asked for out of order.
    let positions: [String: Int]
    /// Whether each column is the first with its name (the one a lookup by name answers).
    private let isFirst: [Bool]
    /// The position of the column asked for last (of any row of the statement). Rows are decoded
    /// column after column in the order they were selected, nearly always, so the position after
    /// it (or, after the last, the first) is tried first: one string comparison where the dictionary hashed the name (~400
    /// instructions, ~130 lookups a payment). Relaxed: a position another thread moved is a hint
    /// missed, never a wrong column — the name at the position is compared.
    private let lastPosition = Atomic<Int>(-1)

    init(names: [String]) {
      self.names = names
      let positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
      self.positions = positions
      isFirst = names.indices.map { positions[names[$0]] == $0 }
    }

    /// The position of the column named `name` (its first, if several have the name), or nil.
    func position(of name: String) -> Int? {
      // After the last column, the next row's first.
      let after = lastPosition.load(ordering: .relaxed) &+ 1
      let next = after < names.count && after >= 0 ? after : 0
      if next < names.count, isFirst[next], names[next] == name {
        lastPosition.store(next, ordering: .relaxed)
        return next
      }
      guard let position = positions[name] else { return nil }
      lastPosition.store(position, ordering: .relaxed)
      return position
    }
  }

  struct MissingColumn: Error, CustomStringConvertible {
    let column: String
    var description: String { "no column \"\(column)\" in the row" }
  }

  let columns: Columns
  let values: [SQLiteData]

  var allColumns: [String] { columns.names }

  func contains(column: String) -> Bool { columns.position(of: column) != nil }

  func decodeNil(column: String) throws -> Bool { value(column) ?? .null == .null }

  func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
    guard let value = value(column) else { throw MissingColumn(column: column) }
    // The common column types take a direct path when the value has their SQLite type (what
    // `SQLiteDataDecoder` would answer too). `decode` is reached through `SQLRow` unspecialized,
    // where a `D?` (or naming `String?`) looks its metadata up in the runtime's cache: ~400
    // instructions, 130 times a payment. So no optional of `D` is made here, and the optional
    // column types are compared with metadata fetched once (`OptionalColumnTypes`).
    switch value {
    case .text(let text):
      if D.self == String.self { return unsafeBitCast(text, to: D.self) }
      if D.self == OptionalColumnTypes.string { return unsafeBitCast(String?.some(text), to: D.self) }
    case .integer(let integer):
      if D.self == Int.self { return unsafeBitCast(Int(integer), to: D.self) }
      if D.self == Int64.self { return unsafeBitCast(Int64(integer), to: D.self) }
      if D.self == OptionalColumnTypes.int { return unsafeBitCast(Int?.some(Int(integer)), to: D.self) }
      if D.self == OptionalColumnTypes.int64 { return unsafeBitCast(Int64?.some(Int64(integer)), to: D.self) }
    case .null:
      if D.self == OptionalColumnTypes.string { return unsafeBitCast(String?.none, to: D.self) }
      if D.self == OptionalColumnTypes.int { return unsafeBitCast(Int?.none, to: D.self) }
      if D.self == OptionalColumnTypes.int64 { return unsafeBitCast(Int64?.none, to: D.self) }
    case .float, .blob:
      break
    }
    return try SQLiteDataDecoder().decode(D.self, from: value)
  }

  private func value(_ column: String) -> SQLiteData? {
    columns.position(of: column).map { values[$0] }
  }
}
