internal import IntentsKit
internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import RideBookingProtos

/// Where a ride stands at any moment, as a function of its facts and the clock: received at
/// booking, confirmed 20 s later, the driver sets off (at once, or in time for a scheduled pickup)
/// and approaches at 30 km/h, one minute to board, then the trip at 30 km/h. The vehicle's position
/// moves in 30-second steps, so a live stream has a next change to wait for until the ride ends.
struct RideSchedule: Sendable {
  static let confirmationDelay: TimeInterval = 20
  static let dispatchDelay: TimeInterval = 60
  static let boardingTime: TimeInterval = 60
  static let positionInterval: TimeInterval = 30
  static let kilometresPerHour = 30.0

  let ride: StoredRide
  let driver: StoredDriver
  let stable: GeoPoint
  let pickupPoint: GeoPoint
  let dropOffPoint: GeoPoint
  let confirmedAt: Date
  let approachingAt: Date
  let pickupAt: Date
  let ongoingAt: Date
  let completedAt: Date

  init(ride: StoredRide, driver: StoredDriver) {
    stable = driver.stable
    pickupPoint = GeoPoint(ride.pickup) ?? driver.stable
    dropOffPoint = GeoPoint(ride.dropOff) ?? pickupPoint
    let approach = max(120, (stable.distanceKilometres(to: pickupPoint) / Self.kilometresPerHour * 3600).rounded())
    let trip = max(180, (pickupPoint.distanceKilometres(to: dropOffPoint) / Self.kilometresPerHour * 3600).rounded())
    confirmedAt = ride.bookedAt.addingTimeInterval(Self.confirmationDelay)
    if let scheduled = ride.scheduledPickup {
      approachingAt = max(ride.bookedAt.addingTimeInterval(Self.dispatchDelay), scheduled.addingTimeInterval(-approach))
    } else {
      approachingAt = ride.bookedAt.addingTimeInterval(Self.dispatchDelay)
    }
    pickupAt = approachingAt.addingTimeInterval(approach)
    ongoingAt = pickupAt.addingTimeInterval(Self.boardingTime)
    completedAt = ongoingAt.addingTimeInterval(trip)
    // Stored last: the ride and driver move in, not copied to be read after.
    self.ride = ride
    self.driver = driver
  }

  /// The moment the ride ended: its completion or its cancellation; nil while it runs at `date`.
  func endedAt(asOf date: Date) -> Date? {
    if let canceled = ride.canceledAt, canceled <= date { return canceled }
    return completedAt <= date ? completedAt : nil
  }

  func isFinished(at date: Date) -> Bool { endedAt(asOf: date) != nil }

  func phase(at date: Date) -> RidePhase {
    if isFinished(at: date) { return .completed }
    if date >= ongoingAt { return .ongoing }
    if date >= pickupAt { return .pickup }
    if date >= approachingAt { return .approachingPickup }
    if date >= confirmedAt { return .confirmed }
    return .received
  }

  /// Where the vehicle is; frozen where it was when a ride is cancelled.
  func vehiclePoint(at date: Date) -> GeoPoint {
    let moment = min(date, ride.canceledAt ?? date)
    func step(_ start: Date, _ end: Date) -> Double {
      let steps = (moment.timeIntervalSince(start) / Self.positionInterval).rounded(.down) * Self.positionInterval
      return steps / end.timeIntervalSince(start)
    }
    if moment >= completedAt { return dropOffPoint }
    if moment >= ongoingAt { return pickupPoint.interpolated(to: dropOffPoint, fraction: step(ongoingAt, completedAt)) }
    if moment >= pickupAt { return pickupPoint }
    if moment >= approachingAt { return stable.interpolated(to: pickupPoint, fraction: step(approachingAt, pickupAt)) }
    return stable
  }

  /// The next moment after `date` at which the phase or the vehicle's position changes; nil once
  /// the ride has ended.
  func nextChange(after date: Date) -> Date? {
    guard !isFinished(at: date) else { return nil }
    var candidates = [confirmedAt, approachingAt, pickupAt, ongoingAt, completedAt].filter { $0 > date }
    if let canceled = ride.canceledAt, canceled > date { candidates.append(canceled) }
    for (start, end) in [(approachingAt, pickupAt), (ongoingAt, completedAt)] where date >= start && date < end {
      let elapsed = date.timeIntervalSince(start)
      let next = start.addingTimeInterval(
        ((elapsed / Self.positionInterval).rounded(.down) + 1) * Self.positionInterval)
      if next < end { candidates.append(next) }
    }
    return candidates.min()
  }

  /// The ride as SiriKit's `INRideStatus` at `date`.
  func status(at date: Date, offer: RideOffer?) -> RideStatus {
    let phase = phase(at: date)
    var status = quote(offer: offer)
    status.rideIdentifier = ride.id
    status.phase = phase
    status.driver = .with {
      $0.person = driver.person
      $0.rating = driver.rating
      $0.phoneNumber = driver.phoneNumber
    }
    status.vehicle = .with {
      $0.location = vehiclePoint(at: date).location
      $0.registrationPlate = driver.registrationPlate
      $0.manufacturer = offer?.manufacturer ?? ""
      $0.model = offer?.model ?? ""
    }
    if phase == .completed { status.completionStatus = completion }
    return status
  }

  /// The ride as it would be booked, before it is: its places, times and price, with no
  /// identifier, phase, driver or vehicle yet (a confirmation's `INRideStatus`).
  func quote(offer: RideOffer?) -> RideStatus {
    .with {
      $0.pickupLocation = ride.pickup
      $0.dropOffLocation = ride.dropOff
      $0.estimatedPickupDate = .init(date: pickupAt)
      $0.estimatedPickupEndDate = .init(date: ongoingAt)
      $0.estimatedDropOffDate = .init(date: completedAt)
      if let scheduled = ride.scheduledPickup { $0.scheduledPickupTime = RideTimes.range(scheduled) }
      $0.rideOption = .with {
        $0.name = offer?.name ?? ride.offerID
        $0.estimatedPickupDate = .init(date: pickupAt)
        $0.priceRange = .with {
          $0.minimumPrice = .cents(ride.fareCents)
          $0.maximumPrice = .cents(ride.maximumFareCents)
        }
        $0.specialPricing = ride.surge
      }
    }
  }

  /// How the ride ended.
  var completion: RideCompletionStatus {
    if ride.canceledAt != nil {
      return .with {
        $0.outcome = .canceledByUser
        $0.paymentAmount = .cents(ride.cancellationFeeCents)
      }
    }
    return .with {
      $0.outcome = .completed
      $0.paymentAmount = .cents(ride.fareCents)
      $0.feedbackRate = !ride.hasFeedback
      $0.feedbackTip = !ride.hasFeedback
      $0.defaultTippingOptions = [100, 200, 500].map { .cents($0) }
    }
  }
}
