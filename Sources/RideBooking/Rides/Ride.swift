package import Foundation
internal import SwiftProtobuf
package import IntentMeshProtos
internal import RideBookingProtos

/// A booked ride as stored. Where it stands at any moment follows from these facts and the clock
/// (`RideSchedule`); only what people do — booking, cancelling, feedback — is written.
package struct Ride: Sendable, Equatable {
  package var id: String
  package var userID: String
  package var offerID: String
  package var partySize: Int
  package var pickup: Intentmesh_V1_Placemark
  package var dropOff: Intentmesh_V1_Placemark
  package var bookedAt: Date
  /// The pickup time the rider asked for; nil for "now".
  package var scheduledPickup: Date?
  package var driverID: String
  package var fareCents: Int64
  package var maximumFareCents: Int64
  package var surge: String
  package var paymentMethodName: String
  package var canceledAt: Date?
  package var cancellationFeeCents: Int64
  package var rating: Int?
  package var tipCents: Int64?

  package init(
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

  package var hasFeedback: Bool { rating != nil || tipCents != nil }
}
