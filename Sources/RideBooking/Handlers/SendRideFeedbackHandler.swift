internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import RideBookingProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// INSendRideFeedbackIntent: a rating from 0 to 10 and a tip for a completed ride, once. A ride
/// still running or cancelled takes no feedback.
struct SendRideFeedbackHandler: IntentHandler {
  typealias Intent = SendRideFeedbackIntent
  typealias Response = SendRideFeedbackIntentResponse

  static let intentClass = "INSendRideFeedbackIntent"
  /// The largest tip, in cents.
  static let maximumTipCents: Int64 = 10_000
  static var parameters: [IntentParameter<Self>] {
    [
      .value("rideIdentifier", \.rideIdentifier, label: "Ride"),
      .value("rating", \.rating, label: "Rating", resolve: Self.resolveRating),
      .value("tip", \.tip, label: "Tip"),
    ]
  }

  let store: any IntentStore

  init(store: any IntentStore) { self.store = store }

  func resolveRating(intent: Intent, context: IntentContext) async throws -> ResolutionResult<Int32> {
    guard intent.hasRating else { return .notRequired }
    guard (0...10).contains(intent.rating) else {
      return .unsupported(ResolutionReason(message: "A rating is from 0 to 10."))
    }
    return .success(intent.rating)
  }

  func plan(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Result<
    (StoredRide, Int?, Int64?), IntentRefusal<Response>
  > {
    let desk = try await RideDesk.load(userID: context.userID, in: database)
    guard let schedule = desk.ride(intent.rideIdentifier, at: context.now) else {
      return .failure(IntentRefusal(.failure, "noRide"))
    }
    guard schedule.isFinished(at: context.now), schedule.ride.canceledAt == nil else {
      return .failure(IntentRefusal(.failure, "rideNotCompleted"))
    }
    guard !schedule.ride.hasFeedback else { return .failure(IntentRefusal(.failure, "feedbackAlreadySent")) }
    guard intent.hasRating || intent.hasTip else { return .failure(IntentRefusal(.failure, "noFeedback")) }
    if intent.hasRating, !(0...10).contains(intent.rating) { return .failure(IntentRefusal(.failure, "invalidRating")) }
    var tip: Int64?
    if intent.hasTip {
      guard let cents = intent.tip.cents, intent.tip.currencyCode.isEmpty || intent.tip.currencyCode == "USD",
        (0...Self.maximumTipCents).contains(cents)
      else { return .failure(IntentRefusal(.failure, "invalidTip")) }
      tip = cents
    }
    return .success((schedule.ride, intent.hasRating ? Int(intent.rating) : nil, tip))
  }

  func confirm(intent: Intent, context: IntentContext) async throws -> Answer {
    try await store.read { database in
      switch try await plan(intent: intent, context: context, database: database) {
      case .failure(let refusal): return refusal.answer
      case .success: return IntentAnswer(code: .ready)
      }
    }
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    switch try await plan(intent: intent, context: context, database: database) {
    case .failure(let refusal): return refusal.answer
    case .success(let (ride, rating, tip)):
      try await RideRepository.recordFeedback(ride.id, rating: rating, tipCents: tip, in: database)
      try await RideChargeRepository.charge(.tip, of: ride, amountCents: tip ?? 0, at: context.now, in: database)
      return IntentAnswer(code: .success)
    }
  }
}
