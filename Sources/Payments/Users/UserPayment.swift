internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import PaymentsProtos
internal import IntentsKit
internal import SQLKit

/// Money from one UnicornPay user to another on the one ledger: a movement from the payer's
/// account to the payee's, legs summing to zero, and a record on each side linked to the other —
/// all inside the caller's transaction, so either all of it is stored or none.
struct UserPayment: Sendable {
  var payer: StoredPaymentProfile
  var source: StoredAccount
  var payee: StoredPaymentProfile
  var destination: StoredAccount
  var amount: Money
  var note: String
  /// The payee as the payer's contact (their name in the payer's book); nil when paid through a
  /// request from someone the payer never added.
  var payeeContact: StoredPayee?

  init(
    payer: StoredPaymentProfile, source: StoredAccount, payee: StoredPaymentProfile, destination: StoredAccount,
    amount: Money,
    note: String, payeeContact: StoredPayee? = nil
  ) {
    self.payer = payer
    self.source = source
    self.payee = payee
    self.destination = destination
    self.amount = amount
    self.note = note
    self.payeeContact = payeeContact
  }

  /// The account a user is paid `currency` into: their default account in it.
  static func receivingAccount(of userID: String, currency: String, in database: any SQLDatabase)
    async throws -> StoredAccount?
  {
    try await AccountRepository.accounts(of: userID, in: database).first { $0.isDefault && $0.currency == currency }
  }

  /// Posts the payment; answers the payer's record. Throws `Ledger.Failure.wouldOverdraw` when the
  /// source cannot pay it (whatever was checked before). The records first, the ledger last: the
  /// balances' rows are locked from the ledger's UPDATE to the commit only.
  @discardableResult
  func post(
    identifiers: any IdentifierGenerator, intentIdentifier: String = "", at milliseconds: Int64,
    in database: any SQLDatabase
  ) async throws -> (sent: StoredPaymentRecord, received: StoredPaymentRecord) {
    let movementID = identifiers.next()
    let payeeName = payeeContact?.displayName ?? payee.displayName
    let sentID = identifiers.next()
    let receivedID = identifiers.next()
    let sent = StoredPaymentRecord(
      id: sentID, userID: payer.userID, direction: .send, counterpartyID: payeeContact?.id ?? "",
      counterpartyUserID: payee.userID, counterpartyName: payeeName, counterpartyHandle: payee.handle,
      accountID: source.id, amount: amount, fee: .zero(amount.currency), note: note, status: .completed,
      movementID: movementID, linkedRecordID: receivedID, createdAt: milliseconds)
    let payerAsPayee = try await PayeeRepository.payee(withHandle: payer.handle, of: payee.userID, in: database)
    let received = StoredPaymentRecord(
      id: receivedID, userID: payee.userID, direction: .receive, counterpartyID: payerAsPayee?.id ?? "",
      counterpartyUserID: payer.userID, counterpartyName: payerAsPayee?.displayName ?? payer.displayName,
      counterpartyHandle: payer.handle, accountID: destination.id, amount: amount, fee: .zero(amount.currency),
      note: note, status: .completed, movementID: movementID, linkedRecordID: sentID, createdAt: milliseconds)
    try await PaymentRecordRepository.insert([sent, received], in: database)
    try await Ledger.post(
      .between(
        id: movementID, userID: payer.userID, kind: .payment, intentIdentifier: intentIdentifier,
        description: "payment from \(payer.handle) to \(payee.handle)", from: source.id, to: destination.id,
        amount: amount),
      at: milliseconds, in: database)
    return (sent, received)
  }
}
