internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import PaymentsProtos
internal import IntentsKit
internal import SQLKit

/// A payment request between two users: the requester's record (pending until paid or declined)
/// and, linked to it, a bill in the payer's book that the payer pays with INPayBillIntent or the
/// app, or declines. Every change happens to both sides in the caller's transaction.
enum PaymentRequests {
  /// The longest note a request carries into the payer's book, in characters.
  static let maximumNoteLength = 500
  /// How many of a requester's requests may wait for one payer at a time.
  static let maximumPending = 10

  /// Why a request cannot be paid or declined.
  enum Failure: Error, Equatable, CustomStringConvertible {
    case notFound(String)
    case notPending(String)
    /// The requester no longer has an account in the request's currency.
    case requesterCannotReceive(String)

    var description: String {
      switch self {
      case .notFound(let id): "no payment request \(id)"
      case .notPending(let id): "the payment request \(id) is no longer pending"
      case .requesterCannotReceive(let currency): "the requester has no account in \(currency) any more"
      }
    }
  }

  /// Records `requester`'s request of `amount` from `payer`, to be paid into `account`: the
  /// requester's pending record and the payer's unpaid bill. Answers the requester's record.
  @discardableResult
  static func send(
    from requester: StoredPaymentProfile, to payer: StoredPaymentProfile, payerContact: StoredPayee,
    account: StoredAccount,
    amount: Money, note: String, identifiers: any IdentifierGenerator, now: Date, timeZone: TimeZone,
    in database: any SQLDatabase
  ) async throws -> StoredPaymentRecord {
    let recordID = identifiers.next()
    let billID = identifiers.next()
    let milliseconds = now.epochMilliseconds
    let record = StoredPaymentRecord(
      id: recordID, userID: requester.userID, direction: .request, counterpartyID: payerContact.id,
      counterpartyUserID: payer.userID, counterpartyName: payerContact.displayName, counterpartyHandle: payer.handle,
      accountID: account.id, amount: amount, fee: .zero(amount.currency), note: note, status: .pending,
      movementID: "", linkedRecordID: billID, createdAt: milliseconds)
    try await PaymentRecordRepository.insert(record, in: database)
    try await BillRepository.insert(
      StoredBill(
        id: billID, userID: payer.userID, payeeNickname: requester.displayName, payeeOrganization: "UnicornPay",
        payeeAccountNumber: requester.handle, type: .unspecified, status: .unpaid, amountDue: amount,
        minimumDue: amount, lateFee: .zero(amount.currency), dueDate: CalendarDay(now, timeZone: timeZone),
        requestID: recordID),
      in: database)
    return record
  }

  /// Pays the request behind `bill` in full from `source`: the money moves to the account the
  /// requester asked it into, the bill is paid, the requester's record completed.
  @discardableResult
  static func pay(
    _ bill: StoredBill, by payer: StoredPaymentProfile, from source: StoredAccount,
    identifiers: any IdentifierGenerator,
    intentIdentifier: String = "", now: Date, timeZone: TimeZone, in database: any SQLDatabase
  ) async throws -> StoredPaymentRecord {
    guard let request = try await PaymentRecordRepository.record(bill.requestID, in: database),
      let requester = try await StoredPaymentProfile.load(request.userID, in: database)
    else { throw Failure.notFound(bill.id) }
    guard bill.status == .unpaid, request.status == .pending else { throw Failure.notPending(bill.id) }
    guard let destination = try await AccountRepository.account(request.accountID, in: database),
      destination.currency == request.amount.currency
    else { throw Failure.requesterCannotReceive(request.amount.currency) }
    let payment = UserPayment(
      payer: payer, source: source, payee: requester, destination: destination, amount: request.amount,
      note: request.note,
      payeeContact: try await PayeeRepository.payee(withHandle: requester.handle, of: payer.userID, in: database))
    let (sent, _) = try await payment.post(
      identifiers: identifiers, intentIdentifier: intentIdentifier, at: now.epochMilliseconds,
      in: database)
    guard
      try await PaymentRecordRepository.settleRequest(
        request.id, status: .completed, movementID: sent.movementID, in: database)
    else { throw Failure.notPending(bill.id) }
    try await BillRepository.applyPayment(
      request.amount, toBill: bill.id, on: CalendarDay(now, timeZone: timeZone), in: database)
    return sent
  }

  /// Declines the request behind `bill`: the bill and the requester's record are canceled.
  static func decline(_ bill: StoredBill, in database: any SQLDatabase) async throws {
    guard try await BillRepository.decline(bill.id, in: database),
      try await PaymentRecordRepository.settleRequest(bill.requestID, status: .canceled, movementID: "", in: database)
    else { throw Failure.notPending(bill.id) }
  }

  /// The request bill `id` of `userID`, if it is theirs.
  static func bill(_ id: String, of userID: String, in database: any SQLDatabase) async throws -> StoredBill? {
    try await BillRepository.bill(id, of: userID, in: database).flatMap { $0.isRequest ? $0 : nil }
  }
}
