import SwiftProtobuf
import Foundation
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
import Logging
@testable import Payments
import PaymentsProtos
import SQLKit
import SwiftProtobuf

/// UnicornPay's handlers over its store (`DomainFixture`: migrated and seeded as the service does) at
/// a fixed time in Zurich: business logic tested without a network.
struct PaymentsFixture {
  static let now = Date(timeIntervalSince1970: 1_779_440_400)  // 2026-05-22 09:00 UTC, 11:00 in Zurich
  static let zurich = TimeZone(identifier: "Europe/Zurich")!
  static let manifest = DomainFixture.manifest(of: "Payments")

  let domain: DomainFixture
  let identifiers = SequentialIdentifierGenerator(prefix: "pay")
  var store: any IntentStore { domain.store }

  static func with<T: Sendable>(_ body: (PaymentsFixture) async throws -> T) async throws -> T {
    try await DomainFixture.with(UnicornPay.definition(), user: PaymentsSeed.demoUser, timeZone: zurich, start: now) {
      try await body(PaymentsFixture(domain: $0))
    }
  }

  func context(user: String = PaymentsSeed.demoUser, identifier: String = "test-intent", now: Date = Self.now)
    -> IntentContext
  {
    domain.context(user: user, identifier: identifier, now: now)
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
    try await domain.handle(handler, intent, user: user, now: now)
  }

  func confirm<H: IntentHandler>(_ handler: H, _ intent: H.Intent, user: String = PaymentsSeed.demoUser) async throws
    -> IntentAnswer<H.Response>
  {
    try await domain.confirm(handler, intent, user: user)
  }

  /// An account's balance in minor units.
  func balance(_ accountID: String) async throws -> Int64 {
    try await store.read { try await AccountRepository.account(accountID, in: $0)?.balanceMinor ?? -1 }
  }

  func audit() async throws -> [String] {
    try await store.read { try await LedgerAudit.problems(in: $0) }
  }

  func setVocabulary(_ type: Intentmesh_V1_VocabularyStringType, _ entries: [(String, String)]) async throws {
    try await domain.setVocabulary(type, entries)
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
