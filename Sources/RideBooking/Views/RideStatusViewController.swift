internal import Foundation
internal import SwiftProtobuf
internal import RideBookingProtos
internal import IntentMeshProtos
internal import IntentsKit

/// The Unicorn Ride view of a ride's status, every section read from the response.
struct RideStatusViewController: IntentViewController {
  typealias Intent = GetRideStatusIntent
  typealias Response = GetRideStatusIntentResponse

  static let intentClass = GetRideStatusHandler.intentClass
  static let view = UnicornRideView(intentClass: intentClass, statusOnly: true)
  static var parameterOrder: [Intentmesh_V1_Parameter] { view.parameterOrder }

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard let response = request.response, response.hasRideStatus else { return .declined }
    let status = response.rideStatus
    return Self.view.configure(
      asked: request.parameters, status: status, pickupPlace: status.pickupLocation,
      dropOffPlace: status.dropOffLocation, optionText: status.rideOption.name, context: request.hostedViewContext,
      width: request.maximumSize.width)
  }
}
