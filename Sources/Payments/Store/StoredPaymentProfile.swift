internal import IntentsKit
internal import Foundation
internal import IntentMeshProtos
internal import SQLKit

/// A user's own UnicornPay standing: signed in, verified, terms accepted, eligible.
struct StoredPaymentProfile: Sendable, Equatable {
  var userID: String
  var displayName: String
  var handle: String
  /// The currency an amount without one means ("85 bucks").
  var homeCurrency: String
  var signedIn: Bool = true
  var credentialsVerified: Bool = true
  var termsAccepted: Bool = true
  var eligible: Bool = true

  init(
    userID: String, displayName: String, handle: String, homeCurrency: String = "USD", signedIn: Bool = true,
    credentialsVerified: Bool = true,
    termsAccepted: Bool = true, eligible: Bool = true
  ) {
    self.userID = userID
    self.displayName = displayName
    self.handle = handle
    self.homeCurrency = homeCurrency
    self.signedIn = signedIn
    self.credentialsVerified = credentialsVerified
    self.termsAccepted = termsAccepted
    self.eligible = eligible
  }

  static func load(_ userID: String, in database: any SQLDatabase) async throws -> StoredPaymentProfile? {
    try await database.cachedRead("payments.profile", userID: userID) {
      try await database.raw("\(select) WHERE user_id = \(bind: userID)").first().map(decode)
    }
  }

  /// The user whose handle is `handle` (any case), if any.
  static func load(handle: String, in database: any SQLDatabase) async throws -> StoredPaymentProfile? {
    guard !handle.isEmpty else { return nil }
    return try await database.raw("\(select) WHERE LOWER(handle) = \(bind: handle.lowercased())").first().map(decode)
  }

  static let select: SQLQueryString = """
    SELECT user_id, display_name, handle, home_currency, signed_in, credentials_verified, terms_accepted, eligible
    FROM payments_profiles
    """

  static func decode(_ row: any SQLRow) throws -> StoredPaymentProfile {
    StoredPaymentProfile(
      userID: try row.decode(column: "user_id", as: String.self),
      displayName: try row.decode(column: "display_name", as: String.self),
      handle: try row.decode(column: "handle", as: String.self),
      homeCurrency: try row.decode(column: "home_currency", as: String.self),
      signedIn: try row.decodeFlag(column: "signed_in"),
      credentialsVerified: try row.decodeFlag(column: "credentials_verified"),
      termsAccepted: try row.decodeFlag(column: "terms_accepted"),
      eligible: try row.decodeFlag(column: "eligible"))
  }

  func save(in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO payments_profiles
        (user_id, display_name, handle, home_currency, signed_in, credentials_verified, terms_accepted, eligible)
      VALUES (\(bind: userID), \(bind: displayName), \(bind: handle), \(bind: homeCurrency), \(bind: signedIn.rowValue),
              \(bind: credentialsVerified.rowValue), \(bind: termsAccepted.rowValue), \(bind: eligible.rowValue))
      """
    ).run()
  }
}
