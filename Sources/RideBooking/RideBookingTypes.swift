internal import Foundation
internal import Logging
internal import SwiftProtobuf
package import IntentMeshProtos
internal import IntentsKit
package import RideBookingProtos

/// Short names for the generated ride-booking contract.
package typealias ListRideOptionsIntent = Intentmesh_Ridebooking_V1_ListRideOptionsIntent
package typealias ListRideOptionsIntentResponse = Intentmesh_Ridebooking_V1_ListRideOptionsIntentResponse
package typealias RequestRideIntent = Intentmesh_Ridebooking_V1_RequestRideIntent
package typealias RequestRideIntentResponse = Intentmesh_Ridebooking_V1_RequestRideIntentResponse
package typealias GetRideStatusIntent = Intentmesh_Ridebooking_V1_GetRideStatusIntent
package typealias GetRideStatusIntentResponse = Intentmesh_Ridebooking_V1_GetRideStatusIntentResponse
package typealias CancelRideIntent = Intentmesh_Ridebooking_V1_CancelRideIntent
package typealias CancelRideIntentResponse = Intentmesh_Ridebooking_V1_CancelRideIntentResponse
package typealias SendRideFeedbackIntent = Intentmesh_Ridebooking_V1_SendRideFeedbackIntent
package typealias SendRideFeedbackIntentResponse = Intentmesh_Ridebooking_V1_SendRideFeedbackIntentResponse
package typealias RideStatus = Intentmesh_Ridebooking_V1_RideStatus
package typealias RidePhase = Intentmesh_Ridebooking_V1_RidePhase
package typealias RideOption = Intentmesh_Ridebooking_V1_RideOption
package typealias RideDriver = Intentmesh_Ridebooking_V1_RideDriver
package typealias RideVehicle = Intentmesh_Ridebooking_V1_RideVehicle
package typealias RideCompletionStatus = Intentmesh_Ridebooking_V1_RideCompletionStatus
package typealias PriceRange = Intentmesh_Ridebooking_V1_PriceRange
package typealias RideFareLineItem = Intentmesh_Ridebooking_V1_RideFareLineItem
package typealias RidePartySizeOption = Intentmesh_Ridebooking_V1_RidePartySizeOption
package typealias PlacemarkUnsupportedReason = Intentmesh_Ridebooking_V1_RidePlacemarkUnsupportedReason
package typealias Placemark = Intentmesh_V1_Placemark
package typealias SpeakableString = Intentmesh_V1_SpeakableString
package typealias CurrencyAmount = Intentmesh_V1_CurrencyAmount
package typealias PaymentMethod = Intentmesh_V1_PaymentMethod
package typealias DateComponentsRange = Intentmesh_V1_DateComponentsRange

extension CurrencyAmount {
  /// An exact amount from integer cents.
  package static func cents(_ cents: Int64, _ currency: String = "USD") -> CurrencyAmount {
    .with {
      $0.currencyCode = currency
      $0.units = cents / 100
      $0.nanos = Int32(cents % 100) * 10_000_000
    }
  }

  /// The amount in integer cents, or nil when it is finer than a cent, malformed (units and nanos
  /// of opposite signs, nanos out of range) or too large.
  package var cents: Int64? {
    guard nanos % 10_000_000 == 0, nanos > -1_000_000_000, nanos < 1_000_000_000,
      !(units > 0 && nanos < 0), !(units < 0 && nanos > 0)
    else { return nil }
    let (whole, overflow) = units.multipliedReportingOverflow(by: 100)
    guard !overflow else { return nil }
    let (total, overflowAgain) = whole.addingReportingOverflow(Int64(nanos / 10_000_000))
    return overflowAgain ? nil : total
  }
}
