/// The versions of a store's schema and tables as one transaction read them (`TableVersioning`),
/// by position: the schema's first (named `TableVersioning.schema`), then each versioned table's in
/// the order of the versions table's key. The names and their positions (`Names`) are made once
/// and shared by every later read that finds the same tables, so that a value kept with the
/// positions it depends on (`ReadCache`) is checked by reading an array, not by hashing names.
struct TableVersions: Sendable {
  /// The schema's and the tables' names, in the order of a read's versions.
  final class Names: Sendable {
    let names: [String]
    let positions: [String: Int]

    init(_ names: [String]) {
      self.names = names
      positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }
  }

  let names: Names
  /// The versions, one for each of `names`.
  let values: [Int64]

  /// These versions with each table of `moves` moved by its count (a table without a version
  /// stays without).
  func moved(by moves: [String: Int64]) -> TableVersions {
    guard !moves.isEmpty else { return self }
    var values = values
    for (table, count) in moves {
      if let position = names.positions[table] { values[position] += count }
    }
    return TableVersions(names: names, values: values)
  }
}
