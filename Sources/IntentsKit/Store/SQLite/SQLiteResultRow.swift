internal import SQLKit
internal import SQLiteKit
internal import SQLiteNIO

/// A row a statement of `SQLiteHandle` stepped: its values by column, decoded as SQLiteKit's rows
/// decode them (`SQLiteDataDecoder`).
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
    return try SQLiteDataDecoder().decode(D.self, from: value)
  }

  private func value(_ column: String) -> SQLiteData? {
    columns.names.firstIndex(of: column).map { values[$0] }
  }
}
