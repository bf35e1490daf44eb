internal import Foundation
internal import SwiftProtobuf
package import IntentMeshProtos
package import SQLKit

/// A person in a user's UnicornPay contacts: someone money can be sent to or asked from.
package struct Payee: Sendable, Equatable {
  package var id: String
  package var displayName: String
  package var givenName: String
  package var familyName: String
  /// Email-style UnicornPay handle; empty when the contact has none that works.
  package var handle: String
  package var hasAccount: Bool
  package var credentialsVerified: Bool

  package init(
    id: String, displayName: String, givenName: String, familyName: String = "", handle: String,
    hasAccount: Bool = true, credentialsVerified: Bool = true
  ) {
    self.id = id
    self.displayName = displayName
    self.givenName = givenName
    self.familyName = familyName
    self.handle = handle
    self.hasAccount = hasAccount
    self.credentialsVerified = credentialsVerified
  }

  /// The contact as SiriKit's `INPerson`.
  package var person: Intentmesh_V1_Person {
    .with {
      $0.displayName = displayName
      $0.customIdentifier = id
      $0.contactIdentifier = id
      $0.nameComponents = .with {
        $0.givenName = givenName
        $0.familyName = familyName
      }
      $0.personHandle = .with {
        $0.value = handle
        $0.type = handle.contains("@") ? .emailAddress : .unspecified
      }
    }
  }
}

/// Reads and writes a user's payees.
package enum PayeeBook {
  package static func payees(of userID: String, in database: any SQLDatabase) async throws -> [Payee] {
    try await database.raw(
      """
      SELECT contact_id, display_name, given_name, family_name, handle, has_account, credentials_verified
      FROM payments_contacts WHERE user_id = \(bind: userID) ORDER BY display_name
      """
    ).all().map { row in
      Payee(
        id: try row.decode(column: "contact_id", as: String.self),
        displayName: try row.decode(column: "display_name", as: String.self),
        givenName: try row.decode(column: "given_name", as: String.self),
        familyName: try row.decode(column: "family_name", as: String.self),
        handle: try row.decode(column: "handle", as: String.self),
        hasAccount: try row.decode(column: "has_account", as: Int.self) != 0,
        credentialsVerified: try row.decode(column: "credentials_verified", as: Int.self) != 0)
    }
  }

  package static func add(_ payee: Payee, for userID: String, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO payments_contacts
        (user_id, contact_id, display_name, given_name, family_name, handle, has_account, credentials_verified)
      VALUES (\(bind: userID), \(bind: payee.id), \(bind: payee.displayName), \(bind: payee.givenName),
              \(bind: payee.familyName), \(bind: payee.handle), \(bind: payee.hasAccount ? 1 : 0),
              \(bind: payee.credentialsVerified ? 1 : 0))
      """
    ).run()
  }
}
