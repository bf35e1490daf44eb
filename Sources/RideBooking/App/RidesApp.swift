internal import Foundation
internal import GRPCCore
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import SQLKit
internal import IntentsKit

/// What UnicornRides' app does to a rider's data: sign up, change the payment method. The app
/// service calls these after checking its input, and the demo riders are made by the same calls;
/// each runs inside the caller's write transaction and refuses with the gRPC status the app API
/// answers.
enum RidesApp {
  /// Makes `rider` a UnicornRides rider. ALREADY_EXISTS when they are one.
  static func signUp(_ rider: StoredRider, in database: any SQLDatabase) async throws {
    if try await StoredRider.load(rider.userID, in: database) != nil {
      throw RPCError(code: .alreadyExists, message: "\(rider.userID) is already a UnicornRides rider")
    }
    try await rider.save(in: database)
  }

  /// Charges the rider's next fares, fees and tips to `method`. FAILED_PRECONDITION before SignUp.
  static func setPaymentMethod(
    _ method: Intentmesh_V1_PaymentMethod, of userID: String, in database: any SQLDatabase
  ) async throws -> StoredRider {
    guard var rider = try await StoredRider.load(userID, in: database) else {
      throw RPCError(code: .failedPrecondition, message: "\(userID) is no UnicornRides rider: SignUp first")
    }
    rider.paymentMethod = method
    try await rider.updatePaymentMethod(in: database)
    return rider
  }

  /// A payment method as the app accepts it: a type, a name of 1–100 printable characters, a hint
  /// of at most 20. INVALID_ARGUMENT otherwise.
  static func paymentMethod(_ given: Intentmesh_V1_PaymentMethod) throws -> Intentmesh_V1_PaymentMethod {
    guard given.type != .unspecified else {
      throw RPCError(code: .invalidArgument, message: "a payment method needs a type (credit, debit, apple pay, …)")
    }
    let hint = given.identificationHint.trimmingCharacters(in: .whitespaces)
    guard hint.count <= 20, !hint.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
    else { throw RPCError(code: .invalidArgument, message: "a payment method's hint is at most 20 characters") }
    var method = given
    method.name = try AppInput.displayName(given.name)
    method.identificationHint = hint
    return method
  }
}
