internal import Foundation
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import IntentsKit
internal import SQLKit

/// Books a transfer or bill payment for a later day: one movement takes the money (and any fee)
/// from the paying account, the money into the scheduled-hold account, and the scheduled payment
/// records what `ScheduledSettlement` does on the day.
enum ScheduledHold {
  static func book(
    _ payment: StoredScheduledPayment, fee: Money? = nil, description: String, context: IntentContext,
    in database: any SQLDatabase
  ) async throws {
    let hold = try await Ledger.systemAccount(.scheduled, currency: payment.amount.currency, in: database)
    var legs = [Movement.Leg(payment.fromAccount, -payment.amount), Movement.Leg(hold, payment.amount)]
    if let fee, fee.minorUnits > 0 {
      legs[0].amount = -(payment.amount + fee)
      legs.append(Movement.Leg(try await Ledger.systemAccount(.fees, currency: fee.currency, in: database), fee))
    }
    try await Ledger.post(
      Movement(
        id: payment.holdMovementID, userID: context.userID, kind: .scheduledHold,
        intentIdentifier: context.intentIdentifier, description: description, legs: legs),
      at: context.now.epochMilliseconds, in: database)
    try await ScheduledPaymentRepository.insert(payment, in: database)
  }

  /// The instant a payment for `day` may settle: the start of the day in the user's time zone.
  static func dueAt(_ day: CalendarDay, context: IntentContext) -> Int64 {
    day.start(in: context.timeZone).epochMilliseconds
  }
}
