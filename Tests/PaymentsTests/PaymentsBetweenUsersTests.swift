import Foundation
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
@testable import Payments
import PaymentsProtos
import SQLKit
import SwiftProtobuf
import Testing

@Suite(
  "Between users: a payment request lands in the payer's bills; paid, it credits the requester; declined, it is canceled"
)
struct PaymentsBetweenUsersTests {
  static func ask(_ payer: String = "CJ", _ units: Int64 = 25) -> RequestPaymentIntent {
    .with {
      $0.payer = person(payer)
      $0.currencyAmount = usd(units)
      $0.note = "dinner at Noon's Grill"
    }
  }

  /// Diana asks CJ for 25.00; answers the requester's record.
  static func dianaAsksCJ(_ fixture: PaymentsFixture) async throws -> StoredPaymentRecord {
    let answer = try await fixture.handle(fixture.request, ask())
    #expect(answer.response.code == .success)
    let records = try await fixture.store.read { try await PaymentRecordRepository.records(of: "diana", in: $0) }
    return try #require(records.first { $0.direction == .request })
  }

  static func cjsBills(_ fixture: PaymentsFixture) async throws -> [StoredBill] {
    try await fixture.store.read { try await BillRepository.bills(of: "cj", in: $0) }
  }

  static func fundCJ(_ fixture: PaymentsFixture, _ minor: Int64) async throws {
    _ = try await fixture.store.write { database in
      try await PaymentsApp.addFunds(
        Money(minor, "USD"), to: "cj-balance", of: "cj", movementID: "deposit-cj", at: 0, in: database)
    }
  }

  @Test("the request is CJ's bill from Diana; CJ pays it with INPayBillIntent; Diana's checking is credited once")
  func payWithIntent() async throws {
    try await PaymentsFixture.with { fixture in
      let request = try await Self.dianaAsksCJ(fixture)
      #expect(request.status == .pending)
      #expect(request.counterpartyUserID == "cj")
      let bills = try await Self.cjsBills(fixture)
      #expect(bills.count == 1)
      let bill = try #require(bills.first)
      #expect(bill.requestID == request.id)
      #expect(request.linkedRecordID == bill.id)
      #expect(bill.payeeNickname == "Diana Huang")
      #expect(bill.payeeAccountNumber == "diana@unicornpay.example")
      #expect(bill.amountDue == Money(2_500, "USD"))
      #expect(bill.status == .unpaid)
      // Diana sees none of it as her bill; CJ sees it in a bill search.
      #expect(
        try await fixture.store.read { try await BillRepository.bills(of: "diana", in: $0) }.allSatisfy {
          !$0.isRequest
        })
      let search = try await fixture.handle(fixture.bills, SearchForBillsIntent(), user: "cj")
      #expect(search.response.bills.map(\.billPayee.nickname.spokenPhrase) == ["Diana Huang"])

      // CJ's balance is empty: refused, nothing moves.
      let pay = AccountsAndBillsTests.payBill("Diana Huang")
      let broke = try await fixture.handle(fixture.payBill, pay, user: "cj")
      #expect(broke.response.code == .failureInsufficientFunds)
      try await Self.fundCJ(fixture, 4_000)
      let paid = try await fixture.handle(fixture.payBill, pay, user: "cj")
      #expect(paid.response.code == .success)
      #expect(paid.response.billDetails.paymentStatus == .completed)
      #expect(try await fixture.balance("cj-balance") == 1_500)
      #expect(try await fixture.balance("diana-checking") == 125_000 + 2_500)
      let settled = try await fixture.store.read { try await PaymentRecordRepository.record(request.id, in: $0) }
      #expect(settled?.status == .completed)
      #expect(settled?.movementID.isEmpty == false)
      // Both sides hold a record of the payment itself, linked.
      let cjRecords = try await fixture.store.read { try await PaymentRecordRepository.records(of: "cj", in: $0) }
      #expect(cjRecords.map(\.direction) == [.send])
      #expect(cjRecords.first?.counterpartyHandle == "diana@unicornpay.example")
      let dianaRecords = try await fixture.store.read { try await PaymentRecordRepository.records(of: "diana", in: $0) }
      #expect(Set(dianaRecords.map(\.direction)) == [.request, .receive])
      #expect(dianaRecords.first { $0.direction == .receive }?.linkedRecordID == cjRecords.first?.id)
      // Paid once: the bill is no longer payable.
      let again = try await fixture.handle(fixture.payBill, pay, user: "cj")
      #expect(again.response.code == .failure)
      #expect(try await fixture.balance("diana-checking") == 125_000 + 2_500)
      #expect(try await fixture.audit().isEmpty)
    }
  }

  @Test("what a user can put in another's book is bounded: a note of 500 characters, 10 pending requests")
  func bounded() async throws {
    try await PaymentsFixture.with { fixture in
      var long = Self.ask()
      long.note = String(repeating: "x", count: 501)
      let tooLong = try await fixture.handle(fixture.request, long)
      #expect(tooLong.userActivity?.userInfo["error"] == "noteTooLong")
      var paidNote = SendPaymentIntent.with {
        $0.payee = person("CJ"); $0.currencyAmount = usd(1)
      }
      paidNote.note = long.note
      #expect(try await fixture.handle(fixture.send, paidNote).userActivity?.userInfo["error"] == "noteTooLong")
      for _ in 0..<PaymentRequests.maximumPending {
        #expect(try await fixture.handle(fixture.request, Self.ask()).response.code == .success)
      }
      let eleventh = try await fixture.handle(fixture.request, Self.ask())
      #expect(eleventh.userActivity?.userInfo["error"] == "tooManyPendingRequests")
      #expect(try await Self.cjsBills(fixture).count == PaymentRequests.maximumPending)
      // Once CJ declines one, Diana may ask again.
      let first = try #require(try await Self.cjsBills(fixture).first)
      try await fixture.store.write { try await PaymentRequests.decline(first, in: $0) }
      #expect(try await fixture.handle(fixture.request, Self.ask()).response.code == .success)
    }
  }

  @Test("a request is paid in full and today; a declined one is canceled on both sides and cannot be paid")
  func partAndDecline() async throws {
    try await PaymentsFixture.with { fixture in
      let request = try await Self.dianaAsksCJ(fixture)
      try await Self.fundCJ(fixture, 10_000)
      let part = try await fixture.handle(
        fixture.payBill, AccountsAndBillsTests.payBill("Diana Huang", units: 10, amountType: .unspecified), user: "cj")
      #expect(part.response.code == .failure)
      let amountAnswer = try await fixture.payBill.resolveAmount(
        intent: AccountsAndBillsTests.payBill("Diana Huang", units: 10, amountType: .unspecified),
        context: fixture.context(user: "cj"))
      #expect(amountAnswer.unsupportedReason?.message.contains("paid in full") == true)
      let tomorrow = DateComponentsRange.with {
        $0.startDateComponents = .with {
          $0.year = 2026
          $0.month = 5
          $0.day = 23
        }
      }
      let later = try await fixture.payBill.resolveScheduledDate(
        intent: AccountsAndBillsTests.payBill("Diana Huang", date: tomorrow), context: fixture.context(user: "cj"))
      #expect(later.unsupportedReason?.message == "A payment request is paid today.")
      #expect(try await fixture.balance("cj-balance") == 10_000)

      let bill = try #require(try await Self.cjsBills(fixture).first)
      try await fixture.store.write { try await PaymentRequests.decline(bill, in: $0) }
      let declined = try await fixture.store.read { try await PaymentRecordRepository.record(request.id, in: $0) }
      #expect(declined?.status == .canceled)
      #expect(try await Self.cjsBills(fixture).first?.status == .canceled)
      // Declined: neither payable by intent nor declinable again.
      let resolution = try await fixture.payBill.resolveBill(
        intent: AccountsAndBillsTests.payBill("Diana Huang"), context: fixture.context(user: "cj"))
      #expect(resolution.unsupportedReason != nil)
      await #expect(throws: PaymentRequests.Failure.self) {
        try await fixture.store.write { try await PaymentRequests.decline(bill, in: $0) }
      }
      #expect(try await fixture.balance("diana-checking") == 125_000)
      #expect(try await fixture.audit().isEmpty)
    }
  }

  @Test("a payee is the user who held the handle when added; a later claim takes nothing; paying oneself is refused")
  func payeesAreUsers() async throws {
    try await PaymentsFixture.with { fixture in
      let payees = try await fixture.store.read { try await PayeeRepository.payees(of: "diana", in: $0) }
      #expect(
        payees.filter(\.hasAccount).map(\.id).sorted() == [
          "buttercup", "celestra-moon", "celestra-star", "cj", "lucky", "scott",
        ])
      #expect(payees.first { $0.id == "lucky" }?.credentialsVerified == false)
      // Pinky signs up: Diana's payee named by that handle stays nobody (someone who claims a handle
      // later takes nobody's payments) until Diana adds the handle again, meaning her.
      try await fixture.store.write { database in
        try await PaymentsApp.signUp(
          StoredPaymentProfile(userID: "pinky", displayName: "Pinky", handle: "PINKY@meadow.example"), in: database)
        try await PaymentsApp.openAccount(
          StoredAccount(
            id: "pinky-balance", ownerID: "pinky", nickname: "Balance", type: .prepaid, organizationName: "UnicornPay",
            currency: "USD"),
          at: 0, in: database)
      }
      let toPinky = SendPaymentIntent.with {
        $0.payee = person("Pinky Nose")
        $0.currencyAmount = usd(5)
      }
      let before = try await fixture.handle(fixture.send, toPinky)
      #expect(before.response.code == .failure)
      #expect(try await fixture.balance("pinky-balance") == 0)
      let bound = try await fixture.store.write { database in
        try await PaymentsApp.addPayee(
          StoredPayee(id: "pinky-again", displayName: "Pinky Nose", givenName: "Pinky", handle: "pinky@meadow.example"),
          for: "diana", in: database)
      }
      #expect(bound.id == "pinky" && bound.userID == "pinky")
      #expect(try await fixture.handle(fixture.send, toPinky).response.code == .success)
      #expect(try await fixture.balance("pinky-balance") == 500)
      // Bound now: the same handle again is already there.
      await #expect(throws: (any Error).self) {
        try await fixture.store.write { database in
          try await PaymentsApp.addPayee(
            StoredPayee(id: "pinky-3", displayName: "Pinky", givenName: "Pinky", handle: "pinky@meadow.example"),
            for: "diana", in: database)
        }
      }
      // A payee entry with one's own handle is refused at the door.
      await #expect(throws: (any Error).self) {
        try await fixture.store.write { database in
          try await PaymentsApp.addPayee(
            StoredPayee(id: "me", displayName: "Me", givenName: "Me", handle: "diana@unicornpay.example"), for: "diana",
            in: database)
        }
      }
    }
  }
}
