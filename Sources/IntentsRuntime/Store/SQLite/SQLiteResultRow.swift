internal import IntentsKit
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
    init(names: [String]) { self.names = names }
  }

  struct MissingColumn: Error, CustomStringConvertible {
    let column: String
    var description: String { "no column \"\(column)\" in the row" }
  }

  let columns: Columns
  let values: [SQLiteData]

  var allColumns: [String] { columns.names }

  func contains(column: String) -> Bool { columns.names.contains(column) }

  func decodeNil(column: String) throws -> Bool { value(column) ?? .null == .null }

  func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
    guard let value = value(column) else { throw MissingColumn(column: column) }
    if let direct: D = Self.direct(value) { return direct }
    return try SQLiteDataDecoder().decode(D.self, from: value)
  }

  /// `value` as `D` when `D` is one of the common column types and the value has its SQLite type
  /// (what `SQLiteDataDecoder` would answer too); nil otherwise, for the decoder to decide.
  private static func direct<D>(_ value: SQLiteData) -> D? {
    switch value {
    case .text(let text):
      if D.self == String.self { return unsafeBitCast(text, to: D.self) }
      if D.self == String?.self { return unsafeBitCast(String?.some(text), to: D.self) }
    case .integer(let integer):
      if D.self == Int.self { return unsafeBitCast(Int(integer), to: D.self) }
      if D.self == Int64.self { return unsafeBitCast(Int64(integer), to: D.self) }
      if D.self == Int?.self { return unsafeBitCast(Int?.some(Int(integer)), to: D.self) }
      if D.self == Int64?.self { return unsafeBitCast(Int64?.some(Int64(integer)), to: D.self) }
    case .null:
      if D.self == String?.self { return unsafeBitCast(String?.none, to: D.self) }
      if D.self == Int?.self { return unsafeBitCast(Int?.none, to: D.self) }
      if D.self == Int64?.self { return unsafeBitCast(Int64?.none, to: D.self) }
    case .float, .blob:
      break
    }
    return nil
  }

  private func value(_ column: String) -> SQLiteData? {
    columns.names.firstIndex(of: column).map { values[$0] }
  }
}
