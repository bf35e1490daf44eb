internal import Foundation
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import IntentsKit
internal import SQLKit

/// Settles scheduled transfers and bill payments whose day has come: the held money leaves the
/// scheduled-hold account for the destination account or the biller, and a bill is marked paid.
/// Each payment settles in its own transaction, at most once.
enum ScheduledSettlement {
  /// Settles everything due at `now`; returns how many payments it settled.
  @discardableResult
  static func settleDue(
    store: any IntentStore, now: Date, identifiers: any IdentifierGenerator
  ) async throws -> Int {
    // Rounded down: a payment is never found due before its time.
    let nowMilliseconds = now.epochMilliseconds(.down)
    var settled = 0
    while true {
      let batch = try await store.read { try await ScheduledPaymentRepository.due(at: nowMilliseconds, in: $0) }
      if batch.isEmpty { return settled }
      for payment in batch {
        let movementID = identifiers.next()
        let done = try await store.write { database in
          try await settle(payment, movementID: movementID, at: nowMilliseconds, in: database)
        }
        if done { settled += 1 }
      }
    }
  }

  /// Settles one payment; false when it was settled already (by another round or replica).
  static func settle(
    _ payment: StoredScheduledPayment, movementID: String, at milliseconds: Int64, in database: any SQLDatabase
  )
    async throws -> Bool
  {
    guard try await ScheduledPaymentRepository.markSettled(payment.id, movementID: movementID, in: database) else {
      return false
    }
    let hold = try await Ledger.systemAccount(.scheduled, currency: payment.amount.currency, in: database)
    let destination =
      switch payment.kind {
      case .transfer: payment.toAccount
      case .bill: try await Ledger.systemAccount(.bills, currency: payment.amount.currency, in: database)
      }
    try await Ledger.post(
      .between(
        id: movementID, userID: payment.userID, kind: .scheduledSettle,
        description: "scheduled \(payment.kind.rawValue) \(payment.id) on \(payment.dueDate)", from: hold,
        to: destination, amount: payment.amount),
      at: milliseconds, in: database)
    if payment.kind == .bill {
      try await BillRepository.applyPayment(payment.amount, toBill: payment.billID, on: payment.dueDate, in: database)
    }
    return true
  }
}
