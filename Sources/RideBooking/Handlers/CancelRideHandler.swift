internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import RideBookingProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// INCancelRideIntent: cancels the ride (by identifier, or the running one) until the rider is on
/// board. Free within the fee threshold of booking, 5.00 after it.
struct CancelRideHandler: IntentHandler {
  typealias Intent = CancelRideIntent
  typealias Response = CancelRideIntentResponse

  static let intentClass = "INCancelRideIntent"
  static let requiresUserConfirmation = true
  static let confirmationPrompt = "Do you want to cancel your ride?"
  /// Free cancellation this long after booking.
  static let feeThreshold: TimeInterval = 120
  static let feeCents: Int64 = 500
  static var parameters: [IntentParameter<Self>] {
    [.value("rideIdentifier", \.rideIdentifier, label: "Ride")]
  }

  let store: any IntentStore

  init(store: any IntentStore) { self.store = store }

  func plan(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Result<
    (RideSchedule, Int64), IntentRefusal<Response>
  > {
    let desk = try await RideDesk.load(userID: context.userID, in: database)
    guard let schedule = desk.ride(intent.rideIdentifier, at: context.now) else {
      return .failure(IntentRefusal(.failure, "noRide"))
    }
    guard !schedule.isFinished(at: context.now) else { return .failure(IntentRefusal(.failure, "rideEnded")) }
    guard schedule.phase(at: context.now) != .ongoing else { return .failure(IntentRefusal(.failure, "rideOngoing")) }
    let free = context.now.timeIntervalSince(schedule.ride.bookedAt) < Self.feeThreshold
    return .success((schedule, free ? 0 : Self.feeCents))
  }

  static func response(_ code: Response.Code, feeCents: Int64) -> Response {
    var response = Response(code: code)
    response.cancellationFee = .cents(feeCents)
    response.cancellationFeeThreshold = .with { $0.minute = Int32(feeThreshold / 60) }
    return response
  }

  func confirm(intent: Intent, context: IntentContext) async throws -> Answer {
    try await store.read { database in
      switch try await plan(intent: intent, context: context, database: database) {
      case .failure(let refusal): return refusal.answer
      case .success(let (_, fee)): return IntentAnswer(Self.response(.ready, feeCents: fee))
      }
    }
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    switch try await plan(intent: intent, context: context, database: database) {
    case .failure(let refusal): return refusal.answer
    case .success(let (schedule, fee)):
      try await RideRepository.cancel(schedule.ride.id, at: context.now, feeCents: fee, in: database)
      try await DriverRepository.release(heldBy: schedule.ride.id, at: context.now, in: database)
      try await RideChargeRepository.charge(
        .cancellationFee, of: schedule.ride, amountCents: fee, at: context.now, in: database)
      context.logger.info("cancelled ride", metadata: ["ride": "\(schedule.ride.id)", "fee": "\(fee)"])
      return IntentAnswer(Self.response(.success, feeCents: fee))
    }
  }
}
