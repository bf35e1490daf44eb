internal import Foundation
internal import SwiftProtobuf
internal import RideBookingProtos
internal import IntentMeshProtos
internal import IntentsKit

/// The Unicorn Ride view of a ride being requested or booked.
struct RequestRideViewController: IntentViewController {
  typealias Intent = RequestRideIntent
  typealias Response = RequestRideIntentResponse

  static let intentClass = RequestRideHandler.intentClass
  static let view = UnicornRideView(intentClass: intentClass, statusOnly: false)
  static var parameterOrder: [Intentmesh_V1_Parameter] { view.parameterOrder }

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    let status = request.response?.hasRideStatus == true ? request.response?.rideStatus : nil
    let intent = request.intent
    return Self.view.configure(
      asked: request.parameters, status: status,
      pickupPlace: status?.hasPickupLocation == true ? status!.pickupLocation : intent.pickupLocation,
      dropOffPlace: status?.hasDropOffLocation == true ? status!.dropOffLocation : intent.dropOffLocation,
      optionText: status?.rideOption.name ?? intent.rideOptionName.spokenPhrase,
      context: request.hostedViewContext, width: request.maximumSize.width)
  }
}
