import Foundation
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
import PaymentsProtos
@testable import Payments
import SQLKit
import Testing

/// UnicornPay's schema as its migrations leave it, on a store that had the earlier ones.
@Suite("UnicornPay schema")
struct PaymentsSchemaTests {
  /// A record as the repository writes it.
  static func record(_ id: String, direction: StoredPaymentRecord.Direction) -> StoredPaymentRecord {
    StoredPaymentRecord(
      id: id, userID: "diana", direction: direction, counterpartyID: "contact-1", counterpartyUserID: "bob",
      counterpartyName: "Bob", counterpartyHandle: "@bob", accountID: "acct-1",
      amount: Money(1_250, "USD"), fee: Money(0, "USD"),
      note: "lunch", status: .completed, movementID: "mv-1", createdAt: 1_800_000_000_000)
  }

  @Test(
    "the record-direction migration keeps every record and its rule; a record is written without a temporary B-tree"
  )
  func recordDirectionCompared() async throws {
    let path = TemporaryDatabase.path(named: "payments-schema")
    defer { TemporaryDatabase.remove(path) }
    let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
    let before = PaymentsSchema.migrations.prefix { $0.id != "payments-5-record-direction-compared" }
    #expect(before.count == PaymentsSchema.migrations.count - 1)
    try await SchemaMigrator.migrate(store, Array(before))
    try await store.write { database in
      try await PaymentRecordRepository.insert(Self.record("rec-1", direction: .send), in: database)
      try await PaymentRecordRepository.insert(Self.record("rec-2", direction: .receive), in: database)
    }

    let applied = try await SchemaMigrator.migrate(store, PaymentsSchema.migrations)
    #expect(applied == ["payments-5-record-direction-compared"])
    let kept = try await store.read { try await PaymentRecordRepository.records(of: "diana", in: $0) }
    #expect(kept.map(\.id).sorted() == ["rec-1", "rec-2"])
    #expect(kept.first { $0.id == "rec-1" }?.amount == Money(1_250, "USD"))

    // The rule holds: a direction outside the three is refused, and nothing of it stays.
    await #expect(throws: (any Error).self) {
      try await store.write { database in
        try await database.raw(
          """
          INSERT INTO payments_records (record_id, user_id, direction, counterparty_id, counterparty_user,
            counterparty_name, counterparty_handle, account_id, amount_minor, currency, fee_minor, note, status,
            movement_id, linked_record, created_at)
          VALUES ('rec-x', 'diana', 'gift', '', '', '', '', 'acct-1', 1, 'USD', 0, '', 0, '', '', 0)
          """
        ).run()
      }
    }
    #expect(try await store.read { try await PaymentRecordRepository.record("rec-x", in: $0) } == nil)

    // The table made anew is versioned again: a write moves its version (cached reads see it).
    let version: @Sendable () async throws -> Int = {
      try await store.read { database in
        try await database.raw("SELECT version FROM intentmesh_table_versions WHERE name = 'payments_records'")
          .first()?.decode(column: "version", as: Int.self) ?? -1
      }
    }
    let versionBefore = try await version()
    try await store.write {
      try await PaymentRecordRepository.insert(Self.record("rec-3", direction: .request), in: $0)
    }
    #expect(try await version() == versionBefore + 1)

    // And an insert no longer builds a temporary B-tree for the CHECK (SQLite's `OpenEphemeral`).
    let plan = try await store.read { database in
      try await database.raw(
        """
        EXPLAIN INSERT INTO payments_records (record_id, user_id, direction, counterparty_id, counterparty_user,
          counterparty_name, counterparty_handle, account_id, amount_minor, currency, fee_minor, note, status,
          movement_id, linked_record, created_at)
        VALUES ('e', 'diana', 'send', '', '', '', '', 'a', 1, 'USD', 0, '', 0, '', '', 0)
        """
      ).all().map { try $0.decode(column: "opcode", as: String.self) }
    }
    #expect(plan.contains("Insert"))
    #expect(!plan.contains("OpenEphemeral"))
    try await store.close()
  }
}
