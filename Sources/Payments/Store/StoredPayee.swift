internal import IntentsKit
internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import SQLKit

/// A person in a user's UnicornPay contacts: someone money can be sent to or asked from. Only a
/// payee who is a UnicornPay user can be paid or asked: the user who held the handle when the payee
/// was added (bound then, so that signing up with a handle later takes nobody's payments); whether
/// they verified their account is read from their profile.
struct StoredPayee: Sendable, Equatable {
  var id: String
  var displayName: String
  var givenName: String
  var familyName: String
  /// Email-style UnicornPay handle; empty when the contact has none that works.
  var handle: String
  /// The UnicornPay user the handle belongs to; empty when it is no user's.
  var userID: String
  /// Whether that user verified their account.
  var credentialsVerified: Bool

  init(
    id: String, displayName: String, givenName: String, familyName: String = "", handle: String,
    userID: String = "", credentialsVerified: Bool = false
  ) {
    self.id = id
    self.displayName = displayName
    self.givenName = givenName
    self.familyName = familyName
    self.handle = handle
    self.userID = userID
    self.credentialsVerified = credentialsVerified
  }

  /// Whether the payee is a UnicornPay user (money reaches their account).
  var hasAccount: Bool { !userID.isEmpty }

  /// The contact as SiriKit's `INPerson`.
  var person: Intentmesh_V1_Person {
    .with {
      $0.displayName = displayName
      $0.customIdentifier = id
      $0.contactIdentifier = id
      $0.nameComponents = .with {
        $0.givenName = givenName
        $0.familyName = familyName
      }
      $0.personHandle = .appHandle(handle)
    }
  }
}

/// Reads and writes a user's payees, each with the user their handle belongs to.
enum PayeeRepository {
  static let select: SQLQueryString = """
    SELECT c.contact_id, c.display_name, c.given_name, c.family_name, c.handle, p.user_id AS payee_user,
           p.credentials_verified AS payee_verified
    FROM payments_contacts c
    LEFT JOIN payments_profiles p ON c.payee_user <> '' AND p.user_id = c.payee_user
    """

  static func payees(of userID: String, in database: any SQLDatabase) async throws -> [StoredPayee] {
    try await database.raw("\(select) WHERE c.user_id = \(bind: userID) ORDER BY c.display_name, c.contact_id")
      .all().map(decode)
  }

  /// The user's payee with `handle` (any case), if any.
  static func payee(withHandle handle: String, of userID: String, in database: any SQLDatabase) async throws
    -> StoredPayee?
  {
    try await database.raw(
      "\(select) WHERE c.user_id = \(bind: userID) AND LOWER(c.handle) = \(bind: handle.lowercased())"
    ).first().map(decode)
  }

  /// Adds `payee`, bound to the user who holds its handle now (if any).
  static func add(_ payee: StoredPayee, for userID: String, in database: any SQLDatabase) async throws {
    let holder = try await StoredPaymentProfile.load(handle: payee.handle, in: database)?.userID ?? ""
    try await database.raw(
      """
      INSERT INTO payments_contacts (user_id, contact_id, display_name, given_name, family_name, handle, payee_user)
      VALUES (\(bind: userID), \(bind: payee.id), \(bind: payee.displayName), \(bind: payee.givenName),
              \(bind: payee.familyName), \(bind: payee.handle), \(bind: holder))
      """
    ).run()
  }

  /// Binds the user's payee with `handle` to the user who holds it now, when it is bound to nobody.
  /// True when it was bound now.
  static func bind(handle: String, of userID: String, in database: any SQLDatabase) async throws -> Bool {
    guard let holder = try await StoredPaymentProfile.load(handle: handle, in: database) else { return false }
    return
      !(try await database.raw(
        """
        UPDATE payments_contacts SET payee_user = \(bind: holder.userID)
        WHERE user_id = \(bind: userID) AND LOWER(handle) = \(bind: handle.lowercased()) AND payee_user = ''
        RETURNING contact_id
        """
      ).all()).isEmpty
  }

  static func decode(_ row: any SQLRow) throws -> StoredPayee {
    StoredPayee(
      id: try row.decode(column: "contact_id", as: String.self),
      displayName: try row.decode(column: "display_name", as: String.self),
      givenName: try row.decode(column: "given_name", as: String.self),
      familyName: try row.decode(column: "family_name", as: String.self),
      handle: try row.decode(column: "handle", as: String.self),
      userID: try row.decode(column: "payee_user", as: String?.self) ?? "",
      credentialsVerified: try row.decodeFlag(column: "payee_verified"))
  }
}
