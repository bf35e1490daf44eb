import SwiftProtobuf
import Foundation
import IntentMeshProtos
import IntentsKit
import IntentsKitTesting
import Logging
@testable import Payments
import PaymentsProtos
import SQLKit
import SwiftProtobuf

/// UnicornPay's store, migrated and seeded in a fresh SQLite file, with handlers over it and a fixed
/// clock in Zurich: business logic tested without a network.
struct PaymentsFixture {
  static let now = Date(timeIntervalSince1970: 1_779_440_400)  // 2026-05-22 09:00 UTC, 11:00 in Zurich
  static let zurich = TimeZone(identifier: "Europe/Zurich")!
  static let manifest = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Services/Payments/Manifest")

  let store: any IntentStore
  let identifiers = SequentialIdentifierGenerator(prefix: "pay")

  static func with<T: Sendable>(_ body: (PaymentsFixture) async throws -> T) async throws -> T {
    try await TestStore.with(named: "payments-test") { store in
      try await SchemaMigrator.migrate(store, SchemaMigrator.runtime + PaymentsSchema.migrations)
      try await PaymentsSeed.seed(store)
      return try await body(PaymentsFixture(store: store))
    }
  }

  func context(user: String = PaymentsSeed.demoUser, identifier: String = "test-intent", now: Date = Self.now)
    -> IntentContext
  {
    IntentContext(userID: user, timeZone: Self.zurich, intentIdentifier: identifier, now: now)
  }

  var send: SendPaymentHandler { SendPaymentHandler(store: store, identifiers: identifiers) }
  var request: RequestPaymentHandler { RequestPaymentHandler(store: store, identifiers: identifiers) }
  var transfer: TransferMoneyHandler { TransferMoneyHandler(store: store, identifiers: identifiers) }
  var accounts: SearchForAccountsHandler { SearchForAccountsHandler(store: store) }
  var bills: SearchForBillsHandler { SearchForBillsHandler(store: store) }
  var payBill: PayBillHandler { PayBillHandler(store: store, identifiers: identifiers) }

  /// Runs handle in a write transaction, as the runtime does.
  func handle<H: IntentHandler>(
    _ handler: H, _ intent: H.Intent, user: String = PaymentsSeed.demoUser, now: Date = Self.now
  ) async throws -> IntentAnswer<H.Response> {
    let context = context(user: user, now: now)
    return try await store.write { try await handler.handle(intent: intent, context: context, database: $0) }
  }

  func confirm<H: IntentHandler>(_ handler: H, _ intent: H.Intent, user: String = PaymentsSeed.demoUser) async throws
    -> IntentAnswer<H.Response>
  {
    try await handler.confirm(intent: intent, context: context(user: user))
  }

  /// An account's balance in minor units.
  func balance(_ accountID: String) async throws -> Int64 {
    try await store.read { try await AccountRepository.account(accountID, in: $0)?.balanceMinor ?? -1 }
  }

  func audit() async throws -> [String] {
    try await store.read { try await LedgerAudit.problems(in: $0) }
  }

  func setVocabulary(_ type: Intentmesh_V1_VocabularyStringType, _ entries: [(String, String)]) async throws {
    try await store.write { database in
      try await UserVocabulary.replace(
        userID: PaymentsSeed.demoUser, type: type,
        with: entries.map { UserVocabulary.Entry(phrase: $0.0, vocabularyIdentifier: $0.1) }, in: database)
    }
  }
}

func person(_ name: String) -> Person { .with { $0.displayName = name } }

func usd(_ units: Int64, _ nanos: Int32 = 0, currency: String = "USD") -> CurrencyAmount {
  .with {
    $0.currencyCode = currency
    $0.units = units
    $0.nanos = nanos
  }
}

func account(nickname: String = "", type: AccountType = .unspecified, organization: String = "") -> PaymentAccount {
  .with {
    if !nickname.isEmpty { $0.nickname = .with { $0.spokenPhrase = nickname } }
    $0.accountType = type
    if !organization.isEmpty { $0.organizationName = .with { $0.spokenPhrase = organization } }
  }
}

func amount(_ units: Int64, _ nanos: Int32 = 0, type: AmountType = .unspecified) -> PaymentAmount {
  .with {
    $0.amountType = type
    if units != 0 || nanos != 0 { $0.amount = usd(units, nanos) }
  }
}

func day(_ year: Int32, _ month: Int32, _ day: Int32) -> DateComponentsRange {
  .with {
    $0.startDateComponents = .with {
      $0.year = year; $0.month = month; $0.day = day
    }
  }
}
