internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import RideBookingProtos

/// Short names for the generated ride-booking contract.
typealias ListRideOptionsIntent = Intentmesh_Ridebooking_V1_ListRideOptionsIntent
typealias ListRideOptionsIntentResponse = Intentmesh_Ridebooking_V1_ListRideOptionsIntentResponse
typealias RequestRideIntent = Intentmesh_Ridebooking_V1_RequestRideIntent
typealias RequestRideIntentResponse = Intentmesh_Ridebooking_V1_RequestRideIntentResponse
typealias GetRideStatusIntent = Intentmesh_Ridebooking_V1_GetRideStatusIntent
typealias GetRideStatusIntentResponse = Intentmesh_Ridebooking_V1_GetRideStatusIntentResponse
typealias CancelRideIntent = Intentmesh_Ridebooking_V1_CancelRideIntent
typealias CancelRideIntentResponse = Intentmesh_Ridebooking_V1_CancelRideIntentResponse
typealias SendRideFeedbackIntent = Intentmesh_Ridebooking_V1_SendRideFeedbackIntent
typealias SendRideFeedbackIntentResponse = Intentmesh_Ridebooking_V1_SendRideFeedbackIntentResponse
typealias RideStatus = Intentmesh_Ridebooking_V1_RideStatus
typealias RidePhase = Intentmesh_Ridebooking_V1_RidePhase
typealias RideOption = Intentmesh_Ridebooking_V1_RideOption
typealias RideDriver = Intentmesh_Ridebooking_V1_RideDriver
typealias RideVehicle = Intentmesh_Ridebooking_V1_RideVehicle
typealias RideCompletionStatus = Intentmesh_Ridebooking_V1_RideCompletionStatus
typealias PriceRange = Intentmesh_Ridebooking_V1_PriceRange
typealias RideFareLineItem = Intentmesh_Ridebooking_V1_RideFareLineItem
typealias RidePartySizeOption = Intentmesh_Ridebooking_V1_RidePartySizeOption
typealias PlacemarkUnsupportedReason = Intentmesh_Ridebooking_V1_RidePlacemarkUnsupportedReason
typealias Placemark = Intentmesh_V1_Placemark
typealias SpeakableString = Intentmesh_V1_SpeakableString
typealias CurrencyAmount = Intentmesh_V1_CurrencyAmount
typealias PaymentMethod = Intentmesh_V1_PaymentMethod
typealias DateComponentsRange = Intentmesh_V1_DateComponentsRange

extension CurrencyAmount {
  /// An exact amount from integer cents.
  static func cents(_ cents: Int64, _ currency: String = "USD") -> CurrencyAmount {
    .with {
      $0.currencyCode = currency
      $0.units = cents / 100
      $0.nanos = Int32(cents % 100) * 10_000_000
    }
  }

  /// The amount in integer cents, or nil when it is finer than a cent, malformed (units and nanos
  /// of opposite signs, nanos out of range) or too large.
  var cents: Int64? {
    guard nanos % 10_000_000 == 0, nanos > -1_000_000_000, nanos < 1_000_000_000,
      !(units > 0 && nanos < 0), !(units < 0 && nanos > 0)
    else { return nil }
    let (whole, overflow) = units.multipliedReportingOverflow(by: 100)
    guard !overflow else { return nil }
    let (total, overflowAgain) = whole.addingReportingOverflow(Int64(nanos / 10_000_000))
    return overflowAgain ? nil : total
  }
}
