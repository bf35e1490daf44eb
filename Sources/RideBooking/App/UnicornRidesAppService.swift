internal import Foundation
internal import GRPCCore
internal import IntentMeshProtos
internal import IntentsKit
internal import RideBookingProtos
internal import IntentMeshCore
internal import SQLKit
internal import SwiftProtobuf

/// `intentmesh.ridebooking.v1.UnicornRidesApp`: UnicornRides' app side. Every call acts as the
/// caller's verified identity (the bearer token's subject, checked by the server's
/// `AuthenticationInterceptor`); a rider reads and changes only their own record, rides and
/// charges.
struct UnicornRidesAppService: Intentmesh_Ridebooking_V1_UnicornRidesApp.SimpleServiceProtocol {
  let store: any IntentStore
  private let clock: any DomainClock

  init(store: any IntentStore, clock: any DomainClock) {
    self.store = store
    self.clock = clock
  }

  func signUp(
    request: Intentmesh_Ridebooking_V1_SignUpRequest, context: ServerContext
  ) async throws -> Intentmesh_Ridebooking_V1_SignUpResponse {
    let userID = try UserIdentity.caller()
    let rider = StoredRider(
      userID: userID, displayName: try AppInput.displayName(request.displayName),
      paymentMethod: try RidesApp.paymentMethod(request.paymentMethod))
    try await store.write { try await RidesApp.signUp(rider, in: $0) }
    return .with { $0.rider = rider.appRider }
  }

  func getRider(
    request: Intentmesh_Ridebooking_V1_GetRiderRequest, context: ServerContext
  ) async throws -> Intentmesh_Ridebooking_V1_GetRiderResponse {
    let userID = try UserIdentity.caller()
    guard let rider = try await store.read({ try await StoredRider.load(userID, in: $0) }) else {
      throw RPCError(code: .notFound, message: "\(userID) is no UnicornRides rider: SignUp first")
    }
    return .with { $0.rider = rider.appRider }
  }

  func setPaymentMethod(
    request: Intentmesh_Ridebooking_V1_SetPaymentMethodRequest, context: ServerContext
  ) async throws -> Intentmesh_Ridebooking_V1_SetPaymentMethodResponse {
    let userID = try UserIdentity.caller()
    let method = try RidesApp.paymentMethod(request.paymentMethod)
    let rider = try await store.write { try await RidesApp.setPaymentMethod(method, of: userID, in: $0) }
    return .with { $0.rider = rider.appRider }
  }

  func listRides(
    request: Intentmesh_Ridebooking_V1_ListRidesRequest, context: ServerContext
  ) async throws -> Intentmesh_Ridebooking_V1_ListRidesResponse {
    let userID = try UserIdentity.caller()
    guard (0...100).contains(request.limit) else {
      throw RPCError(code: .invalidArgument, message: "limit \(request.limit) is not within 1–100 (0: 20)")
    }
    let now = clock.now()
    try await chargeFaresDue(of: userID, at: now)
    let (rides, drivers, charges) = try await store.read { database in
      (
        try await RideRepository.rides(of: userID, limit: request.limit == 0 ? 20 : Int(request.limit), in: database),
        try await DriverRepository.drivers(in: database),
        try await RideChargeRepository.charges(of: userID, in: database)
      )
    }
    let byRide = Dictionary(grouping: charges, by: \.rideID)
    return .with {
      $0.rides = rides.compactMap { ride in
        guard let driver = drivers.first(where: { $0.id == ride.driverID }) else { return nil }
        let schedule = RideSchedule(ride: ride, driver: driver)
        return .with {
          $0.status = schedule.status(at: now, offer: RideOffer.catalog.first { $0.id == ride.offerID })
          $0.charges = (byRide[ride.id] ?? []).map(\.appCharge)
        }
      }
    }
  }

  func listCharges(
    request: Intentmesh_Ridebooking_V1_ListChargesRequest, context: ServerContext
  ) async throws -> Intentmesh_Ridebooking_V1_ListChargesResponse {
    let userID = try UserIdentity.caller()
    let now = clock.now()
    try await chargeFaresDue(of: userID, at: now)
    let charges = try await store.read { try await RideChargeRepository.charges(of: userID, in: $0) }
    return .with { $0.charges = charges.map(\.appCharge) }
  }
}

extension UnicornRidesAppService {
  /// Charges the fares of the caller's rides that completed since the maintenance task last ran,
  /// so that they are shown; takes the write lock only when one is due.
  func chargeFaresDue(of userID: String, at now: Date) async throws {
    guard try await store.read({ try await RideChargeRepository.hasFaresDue(of: userID, at: now, in: $0) }) else {
      return
    }
    _ = try await store.write { try await RideChargeRepository.chargeCompletedFares(of: userID, at: now, in: $0) }
  }
}

extension StoredRider {
  var appRider: Intentmesh_Ridebooking_V1_Rider {
    .with {
      $0.userID = userID
      $0.displayName = displayName
      $0.paymentMethod = paymentMethod
    }
  }
}

extension StoredRideCharge {
  var appCharge: Intentmesh_Ridebooking_V1_Charge {
    .with {
      $0.rideIdentifier = rideID
      $0.kind =
        switch kind {
        case .fare: .fare
        case .cancellationFee: .cancellationFee
        case .tip: .tip
        }
      $0.amount = .cents(amountCents)
      $0.paymentMethod = paymentMethod
      $0.chargedAtMs = chargedAt.epochMilliseconds
    }
  }
}
