internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import PaymentsProtos
internal import IntentsKit
internal import SQLKit

/// The seeds' people and accounts as demo data. Diana pays Buttercup (session 217), asks CJ for
/// dinner money, keeps "Rainbow Checking" and "Rainbow Savings" at Unicorn Bank and a "Sparkle Card"
/// that collects miles (session 214), and owes a few bills. Opening balances are ledger movements
/// like any other.
enum PaymentsSeed {
  static let demoUser = "diana"
  /// When the opening balances were posted: 2026-05-01 00:00 UTC.
  static let openedAt: Int64 = 1_777_593_600_000

  static let payees: [StoredPayee] = [
    StoredPayee(
      id: "buttercup", displayName: "Buttercup", givenName: "Buttercup", handle: "buttercup@unicornpay.example"),
    StoredPayee(
      id: "scott", displayName: "Scott Andrus", givenName: "Scott", familyName: "Andrus",
      handle: "scott@unicornpay.example"),
    StoredPayee(id: "cj", displayName: "CJ", givenName: "CJ", handle: "cj@unicornpay.example"),
    StoredPayee(
      id: "celestra-moon", displayName: "Celestra Moon", givenName: "Celestra", familyName: "Moon",
      handle: "celestra.moon@unicornpay.example"),
    StoredPayee(
      id: "celestra-star", displayName: "Celestra Star", givenName: "Celestra", familyName: "Star",
      handle: "celestra.star@unicornpay.example"),
    // No UnicornPay user has this handle.
    StoredPayee(
      id: "pinky", displayName: "Pinky Nose", givenName: "Pinky", familyName: "Nose", handle: "pinky@meadow.example"),
    StoredPayee(
      id: "lucky", displayName: "Lucky Moontrotter", givenName: "Lucky", familyName: "Moontrotter",
      handle: "lucky@unicornpay.example"),
    StoredPayee(id: "ghost", displayName: "Ghost", givenName: "Ghost", handle: ""),
  ]

  /// The users besides Diana and Scott: the people Diana pays and asks, each with an empty
  /// UnicornPay Balance in USD; Lucky has not verified their account yet.
  static let otherUsers: [StoredPaymentProfile] = [
    StoredPaymentProfile(userID: "buttercup", displayName: "Buttercup", handle: "buttercup@unicornpay.example"),
    StoredPaymentProfile(userID: "cj", displayName: "CJ", handle: "cj@unicornpay.example"),
    StoredPaymentProfile(
      userID: "celestra-moon", displayName: "Celestra Moon", handle: "celestra.moon@unicornpay.example"),
    StoredPaymentProfile(
      userID: "celestra-star", displayName: "Celestra Star", handle: "celestra.star@unicornpay.example"),
    StoredPaymentProfile(
      userID: "lucky", displayName: "Lucky Moontrotter", handle: "lucky@unicornpay.example",
      credentialsVerified: false),
  ]

  static let accounts: [(StoredAccount, opening: Int64)] = [
    (
      StoredAccount(
        id: "diana-checking", ownerID: demoUser, nickname: "Rainbow Checking", accountNumber: "CH-1001-4821",
        type: .checking, organizationName: "Unicorn Bank", currency: "USD", isDefault: true),
      125_000
    ),
    (
      StoredAccount(
        id: "diana-savings", ownerID: demoUser, nickname: "Rainbow Savings", accountNumber: "SV-1001-7730",
        type: .saving, organizationName: "Unicorn Bank", currency: "USD"),
      500_000
    ),
    (
      StoredAccount(
        id: "diana-sparkle", ownerID: demoUser, nickname: "Sparkle Card", accountNumber: "CC-5500-0042",
        type: .credit, organizationName: "Sparkle Credit Union", currency: "USD", overdraftLimitMinor: 200_000,
        secondaryBalanceType: .miles, secondaryBalance: 12_500),
      -32_000
    ),
    (
      StoredAccount(
        id: "diana-euro", ownerID: demoUser, nickname: "Euro Pocket", accountNumber: "EU-2002-1180",
        type: .checking, organizationName: "Unicorn Bank Europe", currency: "EUR", isDefault: true),
      30_000
    ),
    (
      StoredAccount(
        id: "scott-checking", ownerID: "scott", nickname: "Everyday", accountNumber: "CH-3003-0001", type: .checking,
        organizationName: "Unicorn Bank", currency: "USD", isDefault: true),
      2_000
    ),
  ]

  static func bills() -> [StoredBill] {
    [
      StoredBill(
        id: "bill-power", userID: demoUser, payeeNickname: "Unicorn Power", payeeOrganization: "Unicorn Power & Light",
        payeeAccountNumber: "UP-77812", type: .electricity, status: .unpaid, amountDue: Money(8_420, "USD"),
        minimumDue: Money(2_500, "USD"), lateFee: Money(1_000, "USD"),
        dueDate: CalendarDay(year: 2026, month: 5, day: 28)),
      StoredBill(
        id: "bill-water", userID: demoUser, payeeNickname: "Rainbow Water", payeeOrganization: "Rainbow Water Works",
        payeeAccountNumber: "RW-10-552", type: .water, status: .unpaid, amountDue: Money(3_175, "USD"),
        minimumDue: Money(3_175, "USD"), lateFee: Money(500, "USD"),
        dueDate: CalendarDay(year: 2026, month: 5, day: 30)),
      StoredBill(
        id: "bill-cable", userID: demoUser, payeeNickname: "Cloud Cable", payeeOrganization: "Cloud Cable Co",
        payeeAccountNumber: "CC-9001", type: .cable, status: .completed, amountDue: Money(0, "USD"),
        minimumDue: Money(0, "USD"), lateFee: Money(0, "USD"), dueDate: CalendarDay(year: 2026, month: 5, day: 12),
        paymentDate: CalendarDay(year: 2026, month: 5, day: 10)),
      StoredBill(
        id: "bill-sparkle", userID: demoUser, payeeNickname: "Sparkle Card", payeeOrganization: "Sparkle Credit Union",
        payeeAccountNumber: "CC-5500-0042", type: .creditCard, status: .unpaid, amountDue: Money(32_000, "USD"),
        minimumDue: Money(3_500, "USD"), lateFee: Money(2_900, "USD"),
        dueDate: CalendarDay(year: 2026, month: 6, day: 5)),
    ]
  }

  /// Fills an empty store through the app's own calls (`PaymentsApp`); does nothing when the demo
  /// profile exists.
  static func seed(_ store: any IntentStore) async throws {
    try await store.write { database in
      if try await StoredPaymentProfile.load(demoUser, in: database) != nil { return }
      let profiles = [
        StoredPaymentProfile(userID: demoUser, displayName: "Diana Huang", handle: "diana@unicornpay.example"),
        StoredPaymentProfile(userID: "scott", displayName: "Scott Andrus", handle: "scott@unicornpay.example"),
        StoredPaymentProfile(
          userID: "sleepy", displayName: "Sleepy Hollow", handle: "sleepy@unicornpay.example", signedIn: false),
        StoredPaymentProfile(
          userID: "newbie", displayName: "New Foal", handle: "newbie@unicornpay.example", termsAccepted: false),
        StoredPaymentProfile(
          userID: "grounded", displayName: "Grounded Pony", handle: "grounded@unicornpay.example", eligible: false),
      ]
      for profile in profiles + otherUsers { try await PaymentsApp.signUp(profile, in: database) }
      for payee in payees { _ = try await PaymentsApp.addPayee(payee, for: demoUser, in: database) }
      _ = try await PaymentsApp.addPayee(payees[0], for: "scott", in: database)
      for (account, opening) in accounts {
        try await PaymentsApp.openAccount(account, opening: opening, at: openedAt, in: database)
      }
      for user in otherUsers {
        try await PaymentsApp.openAccount(
          StoredAccount(
            id: "\(user.userID)-balance", ownerID: user.userID, nickname: "UnicornPay Balance", type: .prepaid,
            organizationName: "UnicornPay", currency: "USD"),
          at: openedAt, in: database)
      }
      for bill in bills() { try await BillRepository.insert(bill, in: database) }
    }
  }
}
