import Foundation
@testable import IntentsKit
import IntentsKitTesting
import SQLKit
import Testing

/// The one way times and flags go into rows and come back, on whichever store the run uses.
@Suite("Times and flags in rows")
struct RowValuesTests {
  @Test(
    "a time is whole milliseconds since 1970, rounded to the nearest",
    arguments: [
      (0.0004, Int64(0)), (0.0006, 1), (1.9996, 2000), (-0.0006, -1),
      (1_779_350_400.123_4, 1_779_350_400_123), (1_779_350_400.123_6, 1_779_350_400_124),
    ])
  func epochMilliseconds(seconds: Double, milliseconds: Int64) {
    #expect(Date(timeIntervalSince1970: seconds).epochMilliseconds == milliseconds)
  }

  @Test("a time read back from its milliseconds is the same millisecond")
  func epochRoundTrip() {
    for milliseconds: Int64 in [0, 1, -1, 1_779_350_400_123, 4_102_444_800_000] {
      #expect(Date(epochMilliseconds: milliseconds).epochMilliseconds == milliseconds)
    }
    #expect(Date(epochMilliseconds: 1_500).timeIntervalSince1970 == 1.5)
  }

  @Test("flags are 1 and 0 in an INTEGER column; any other integer reads true, NULL false")
  func flags() async throws {
    try await TestStore.with(named: "row-flags") { store in
      try await SchemaMigrator.migrate(
        store, [SchemaMigration(id: "flags-1", statements: ["CREATE TABLE flags (id INTEGER NOT NULL, flag INTEGER)"])])
      try await store.write { database in
        for (id, value) in [(1, true.rowValue), (2, false.rowValue), (3, 7)] {
          try await database.raw("INSERT INTO flags (id, flag) VALUES (\(bind: id), \(bind: value))").run()
        }
        try await database.raw("INSERT INTO flags (id, flag) VALUES (4, NULL)").run()
      }
      let read = try await store.read { database in
        try await database.raw("SELECT id, flag FROM flags ORDER BY id").all().map {
          (try $0.decode(column: "id", as: Int.self), try $0.decodeFlag(column: "flag"))
        }
      }
      #expect(read.map(\.0) == [1, 2, 3, 4])
      #expect(read.map(\.1) == [true, false, true, false])
      let stored = try await store.read { database in
        try await database.raw("SELECT flag FROM flags WHERE id < 3 ORDER BY id").all().map {
          try $0.decode(column: "flag", as: Int.self)
        }
      }
      #expect(stored == [1, 0])
    }
  }
}
