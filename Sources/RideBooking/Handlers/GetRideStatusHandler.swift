internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import RideBookingProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// INGetRideStatusIntent: the user's running ride (or the last one), and its live updates
/// (`startSendingUpdates(for:to:)`): every change of phase and vehicle position, on the domain's
/// clock, until the ride ends or the client leaves.
struct GetRideStatusHandler: LiveUpdatingIntentHandler {
  typealias Intent = GetRideStatusIntent
  typealias Response = GetRideStatusIntentResponse

  static let intentClass = "INGetRideStatusIntent"
  static let handleHasEffects = false
  static var parameters: [IntentParameter<Self>] { [] }

  let store: any IntentStore
  let clock: any DomainClock

  init(store: any IntentStore, clock: any DomainClock) {
    self.store = store
    self.clock = clock
  }

  /// The status answer for the user's ride at `date`, and when it next changes (nil once it ended).
  func current(userID: String, at date: Date, in database: any SQLDatabase) async throws -> (
    answer: Answer, nextChange: Date?
  ) {
    let desk = try await RideDesk.load(userID: userID, in: database)
    guard let rider = desk.rider else { return (IntentRefusal(.failureRequiringAppLaunch, "noRider").answer, nil) }
    guard rider.credentialsVerified else {
      return (IntentRefusal(.failureRequiringAppLaunchMustVerifyCredentials, "credentialsUnverified").answer, nil)
    }
    guard let schedule = desk.ride("", at: date) else { return (IntentRefusal(.failure, "noRide").answer, nil) }
    var response = Response(code: .success)
    response.rideStatus = schedule.status(at: date, offer: RideOffer.catalog.first { $0.id == schedule.ride.offerID })
    return (IntentAnswer(response), schedule.nextChange(after: date))
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    try await current(userID: context.userID, at: context.now, in: database).answer
  }

  /// Sends the status now, then at each change of phase or position; returns after the update that
  /// shows the ride completed (or cancelled), or at once when there is no running ride. A
  /// cancellation written meanwhile is picked up at the next change.
  func startSendingUpdates(
    for intent: Intent, context: IntentContext,
    to send: @escaping @Sendable (Answer) async throws -> Void
  ) async throws {
    var last: Response?
    while true {
      let now = clock.now()
      let userID = context.userID
      let state = try await store.read { database in try await current(userID: userID, at: now, in: database) }
      if state.answer.response != last {
        try await send(state.answer)
        last = state.answer.response
      }
      guard let next = state.nextChange else { return }
      try await clock.sleep(until: next)
    }
  }
}
