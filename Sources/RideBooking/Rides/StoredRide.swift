internal import Foundation
internal import IntentMeshProtos
internal import RideBookingProtos

/// A booked ride as stored. Where it stands at any moment follows from these facts and the clock
/// (`RideSchedule`); only what people do — booking, cancelling, feedback — is written.
struct StoredRide: Sendable, Equatable {
  var id: String
  var userID: String
  var offerID: String
  var partySize: Int
  var pickup: Intentmesh_V1_Placemark
  var dropOff: Intentmesh_V1_Placemark
  var bookedAt: Date
  /// The pickup time the rider asked for; nil for "now".
  var scheduledPickup: Date?
  var driverID: String
  var fareCents: Int64
  var maximumFareCents: Int64
  var surge: String
  var paymentMethodName: String
  var canceledAt: Date?
  var cancellationFeeCents: Int64
  var rating: Int?
  var tipCents: Int64?

  init(
    id: String, userID: String, offerID: String, partySize: Int, pickup: Intentmesh_V1_Placemark,
    dropOff: Intentmesh_V1_Placemark, bookedAt: Date, scheduledPickup: Date? = nil, driverID: String,
    fareCents: Int64, maximumFareCents: Int64, surge: String = "", paymentMethodName: String = "",
    canceledAt: Date? = nil, cancellationFeeCents: Int64 = 0, rating: Int? = nil, tipCents: Int64? = nil
  ) {
    self.id = id
    self.userID = userID
    self.offerID = offerID
    self.partySize = partySize
    self.pickup = pickup
    self.dropOff = dropOff
    self.bookedAt = bookedAt
    self.scheduledPickup = scheduledPickup
    self.driverID = driverID
    self.fareCents = fareCents
    self.maximumFareCents = maximumFareCents
    self.surge = surge
    self.paymentMethodName = paymentMethodName
    self.canceledAt = canceledAt
    self.cancellationFeeCents = cancellationFeeCents
    self.rating = rating
    self.tipCents = tipCents
  }

  var hasFeedback: Bool { rating != nil || tipCents != nil }
}
