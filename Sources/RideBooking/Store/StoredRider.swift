internal import IntentsKit
internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import SQLKit

/// A UnicornRides user: whether their credentials are verified, and how they pay.
struct StoredRider: Sendable, Equatable {
  var userID: String
  var displayName: String
  var credentialsVerified: Bool
  var paymentMethod: Intentmesh_V1_PaymentMethod

  init(
    userID: String, displayName: String, credentialsVerified: Bool = true, paymentMethod: Intentmesh_V1_PaymentMethod
  ) {
    self.userID = userID
    self.displayName = displayName
    self.credentialsVerified = credentialsVerified
    self.paymentMethod = paymentMethod
  }

  static func load(_ userID: String, in database: any SQLDatabase) async throws -> StoredRider? {
    try await database.raw(
      """
      SELECT display_name, credentials_verified, payment_method_type, payment_method_name, payment_method_hint
      FROM rides_riders WHERE user_id = \(bind: userID)
      """
    ).first().map { row in
      StoredRider(
        userID: userID,
        displayName: try row.decode(column: "display_name", as: String.self),
        credentialsVerified: try row.decodeFlag(column: "credentials_verified"),
        paymentMethod: try .with {
          $0.type = .init(rawValue: try row.decode(column: "payment_method_type", as: Int.self)) ?? .unspecified
          $0.name = try row.decode(column: "payment_method_name", as: String.self)
          $0.identificationHint = try row.decode(column: "payment_method_hint", as: String.self)
        })
    }
  }

  func save(in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO rides_riders (user_id, display_name, credentials_verified, payment_method_type, payment_method_name,
                                payment_method_hint)
      VALUES (\(bind: userID), \(bind: displayName), \(bind: credentialsVerified.rowValue),
              \(bind: paymentMethod.type.rawValue), \(bind: paymentMethod.name), \(bind: paymentMethod.identificationHint))
      """
    ).run()
  }

  func updatePaymentMethod(in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      UPDATE rides_riders SET payment_method_type = \(bind: paymentMethod.type.rawValue),
        payment_method_name = \(bind: paymentMethod.name), payment_method_hint = \(bind: paymentMethod.identificationHint)
      WHERE user_id = \(bind: userID)
      """
    ).run()
  }
}
