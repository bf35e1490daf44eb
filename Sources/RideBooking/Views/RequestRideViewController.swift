internal import Foundation
internal import SwiftProtobuf
internal import RideBookingProtos
package import IntentMeshProtos
package import IntentsKit

/// The Unicorn Ride view of a ride being requested or booked.
package struct RequestRideViewController: IntentViewController {
  package typealias Intent = RequestRideIntent
  package typealias Response = RequestRideIntentResponse

  package static let intentClass = RequestRideHandler.intentClass
  static let view = UnicornRideView(intentClass: intentClass, statusOnly: false)
  package static var parameterOrder: [Intentmesh_V1_Parameter] { view.parameterOrder }

  package init() {}

  package func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
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
