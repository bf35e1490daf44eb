internal import Foundation
internal import SwiftProtobuf
internal import RideBookingProtos
internal import IntentMeshProtos
internal import IntentsKit

/// The "Unicorn Ride" view of WWDC 2017 session 214, step by step: on the empty set a header with
/// the fare and special pricing (claiming both); then the pickup map (declined in a Maps card, where
/// the host draws its own map), the drop-off, the ride option name, and the driver and vehicle as
/// one section built from two parameters.
struct UnicornRideView: Sendable {
  /// The class of the response the status parameters belong to.
  let responseClass: String
  /// Where each section's parameter lives: the intent (RequestRide) or the response (GetRideStatus).
  let pickup: Intentmesh_V1_Parameter
  let dropOff: Intentmesh_V1_Parameter
  let optionName: Intentmesh_V1_Parameter

  init(intentClass: String, statusOnly: Bool) {
    responseClass = intentClass + "Response"
    func parameter(_ keyPath: String, inResponse: Bool) -> Intentmesh_V1_Parameter {
      .with {
        $0.parameterClass = inResponse ? intentClass + "Response" : intentClass
        $0.keyPath = keyPath
      }
    }
    pickup = parameter(statusOnly ? "rideStatus.pickupLocation" : "pickupLocation", inResponse: statusOnly)
    dropOff = parameter(statusOnly ? "rideStatus.dropOffLocation" : "dropOffLocation", inResponse: statusOnly)
    optionName = parameter(statusOnly ? "rideStatus.rideOption.name" : "rideOptionName", inResponse: statusOnly)
  }

  func response(_ keyPath: String) -> Intentmesh_V1_Parameter {
    .with {
      $0.parameterClass = responseClass
      $0.keyPath = keyPath
    }
  }

  var fare: Intentmesh_V1_Parameter { response("rideStatus.rideOption.priceRange") }
  var specialPricing: Intentmesh_V1_Parameter { response("rideStatus.rideOption.specialPricing") }
  var driver: Intentmesh_V1_Parameter { response("rideStatus.driver") }
  var vehicle: Intentmesh_V1_Parameter { response("rideStatus.vehicle") }

  /// The order the host asks in, after the empty set.
  var parameterOrder: [Intentmesh_V1_Parameter] { [pickup, dropOff, optionName, driver, vehicle] }

  /// Where the ride stands, e.g. "Approaching pickup · 17:04 UTC".
  static func progress(_ status: RideStatus) -> String? {
    let time: (Google_Protobuf_Timestamp) -> String = { stamp in
      let formatter = DateFormatter()
      formatter.dateFormat = "HH:mm"
      formatter.timeZone = .gmt
      return formatter.string(from: stamp.date) + " UTC"
    }
    switch status.phase {
    case .unspecified, .UNRECOGNIZED: return nil
    case .received: return "Requested · pickup \(time(status.estimatedPickupDate))"
    case .confirmed: return "Confirmed · pickup \(time(status.estimatedPickupDate))"
    case .approachingPickup: return "Approaching pickup · \(time(status.estimatedPickupDate))"
    case .pickup: return "At the pickup"
    case .ongoing: return "On the way · arriving \(time(status.estimatedDropOffDate))"
    case .completed: return status.completionStatus.outcome == .completed ? "Arrived" : "Cancelled"
    }
  }

  /// One step of the sequence. `status` is the response's ride status, once there is one.
  func configure(
    asked: [Intentmesh_V1_Parameter], status: RideStatus?, pickupPlace: Placemark, dropOffPlace: Placemark,
    optionText: String, context: Intentmesh_V1_HostedViewContext, width: Double
  ) -> ViewConfiguration {
    let width = width > 0 ? width : 320
    if asked.isEmpty {
      guard let status, status.rideOption.hasPriceRange else { return .declined }
      let range = status.rideOption.priceRange
      var rows: [Intentmesh_V1_ViewNode] = [
        .text("Unicorn Ride", role: "title"),
        .text(
          "\(DisplayText.currency(range.minimumPrice)) – \(DisplayText.currency(range.maximumPrice))", role: "fare",
          parameter: fare.keyPath),
      ]
      if !status.rideOption.specialPricing.isEmpty {
        rows.append(.text(status.rideOption.specialPricing, role: "badge", parameter: specialPricing.keyPath))
      }
      if let line = Self.progress(status) { rows.append(.text(line, role: "phase")) }
      return .drawn(
        [fare, specialPricing],
        view: .with {
          $0.kind = "unicorn-ride-header"
          $0.root = .stack(.vertical, rows, role: "pink")
        }, width: width, height: Double(24 + 24 * rows.count))
    }
    let keyPaths = Set(asked.map(\.keyPath))
    if keyPaths.contains(pickup.keyPath) {
      guard context != .mapsCard, let point = GeoPoint(pickupPlace) else { return .declined }
      let map = Intentmesh_V1_ViewNode.with {
        $0.map = .with {
          $0.center = point.location
          $0.annotations = [pickupPlace] + (GeoPoint(dropOffPlace) != nil ? [dropOffPlace] : [])
          if let status, status.hasVehicle {
            $0.annotations.append(
              .with {
                $0.name = "Your ride"; $0.location = status.vehicle.location
              })
          }
        }
        $0.role = "pickup-map"
        $0.parameterKeyPath = pickup.keyPath
      }
      return .drawn(
        [pickup],
        view: .with {
          $0.kind = "unicorn-ride-map"; $0.root = map
        }, width: width, height: 180)
    }
    if keyPaths.contains(dropOff.keyPath) {
      return .drawn(
        [dropOff],
        view: .with {
          $0.kind = "unicorn-ride-row"; $0.root = .row("Drop-off", dropOffPlace.displayText, parameter: dropOff.keyPath)
        },
        width: width, height: 44)
    }
    if keyPaths.contains(optionName.keyPath) {
      guard !optionText.isEmpty else { return .declined }
      return .drawn(
        [optionName],
        view: .with {
          $0.kind = "unicorn-ride-row"; $0.root = .row("Ride", optionText, parameter: optionName.keyPath)
        },
        width: width, height: 44)
    }
    if keyPaths.contains(driver.keyPath) || keyPaths.contains(vehicle.keyPath) {
      guard let status, status.hasDriver, status.hasVehicle else { return .declined }
      let rows: [Intentmesh_V1_ViewNode] = [
        .text(
          "\(status.driver.person.displayName) ★\(status.driver.rating)", role: "driver", parameter: driver.keyPath),
        .text(
          "\(status.vehicle.model) · \(status.vehicle.registrationPlate)", role: "vehicle", parameter: vehicle.keyPath),
      ]
      return .drawn(
        [driver, vehicle],
        view: .with {
          $0.kind = "unicorn-ride-driver"; $0.root = .stack(.vertical, rows)
        },
        width: width, height: 64)
    }
    return .declined
  }
}
