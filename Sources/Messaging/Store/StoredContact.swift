internal import IntentsKit
internal import Foundation
internal import MessagingProtos
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import SQLKit

/// A person in a user's UnicornChat address book.
struct StoredContact: Sendable, Equatable {
  var id: String
  var displayName: String
  var givenName: String
  var familyName: String
  /// The unicorn name, e.g. "Sparkle Sparkly".
  var nickname: String
  var handle: String
  /// The UnicornChat user the contact is: who held the handle when the contact was added (empty:
  /// nobody then).
  var userID: String
  /// Whether the contact is a UnicornChat user.
  var hasAccount: Bool
  /// Whether that user takes this user's messages: their service is on and they do not block
  /// this user (read, not stored).
  var messagingEnabled: Bool

  init(
    id: String, displayName: String, givenName: String, familyName: String = "", nickname: String = "",
    handle: String, userID: String = "", hasAccount: Bool = false, messagingEnabled: Bool = false
  ) {
    self.userID = userID
    self.id = id
    self.displayName = displayName
    self.givenName = givenName
    self.familyName = familyName
    self.nickname = nickname
    self.handle = handle
    self.hasAccount = hasAccount
    self.messagingEnabled = messagingEnabled
  }

  /// The contact as SiriKit's `INPerson`, identified by `customIdentifier`.
  var person: Intentmesh_V1_Person {
    .with {
      $0.displayName = displayName
      $0.customIdentifier = id
      $0.contactIdentifier = id
      $0.nameComponents = .with {
        $0.givenName = givenName
        $0.familyName = familyName
        $0.nickname = nickname
      }
      $0.personHandle = .appHandle(handle)
    }
  }
}

/// Reads a user's address book.
enum ContactRepository {
  /// Each contact with the user it is bound to (has an account), and whether that user takes the
  /// book owner's messages (service on, owner not blocked).
  static let select: SQLQueryString = """
    SELECT c.contact_id, c.display_name, c.given_name, c.family_name, c.nickname, c.handle,
      COALESCE(a.user_id, '') AS contact_user,
      CASE WHEN a.user_id IS NULL THEN 0 ELSE 1 END AS has_account,
      CASE WHEN a.user_id IS NOT NULL AND a.service_enabled <> 0 AND NOT EXISTS (
        SELECT 1 FROM messaging_blocks b JOIN messaging_accounts me ON me.user_id = c.user_id
        WHERE b.user_id = a.user_id AND b.handle = LOWER(me.handle)) THEN 1 ELSE 0 END AS messaging_enabled
    FROM messaging_contacts c LEFT JOIN messaging_accounts a ON c.contact_user <> '' AND a.user_id = c.contact_user
    """

  /// The user's address book, by display name.
  static func contacts(of userID: String, in database: any SQLDatabase) async throws -> [StoredContact] {
    try await database.raw("\(select) WHERE c.user_id = \(bind: userID) ORDER BY c.display_name, c.contact_id")
      .all().map(decode)
  }

  /// The user's contact with this handle (compared without case), if any.
  static func contact(withHandle handle: String, of userID: String, in database: any SQLDatabase) async throws
    -> StoredContact?
  {
    try await database.raw(
      "\(select) WHERE c.user_id = \(bind: userID) AND LOWER(c.handle) = \(bind: handle.lowercased())"
    ).first().map(decode)
  }

  /// Adds `contact`, bound to the user who holds its handle now (if any).
  static func add(_ contact: StoredContact, for userID: String, in database: any SQLDatabase) async throws {
    let holder = try await MessagingAccountRepository.account(handle: contact.handle, in: database)?.userID ?? ""
    try await database.raw(
      """
      INSERT INTO messaging_contacts
        (user_id, contact_id, display_name, given_name, family_name, nickname, handle, contact_user)
      VALUES (\(bind: userID), \(bind: contact.id), \(bind: contact.displayName), \(bind: contact.givenName),
              \(bind: contact.familyName), \(bind: contact.nickname), \(bind: contact.handle), \(bind: holder))
      """
    ).run()
  }

  /// Binds the user's contact with `handle` to the user who holds it now, when it is bound to
  /// nobody. True when it was bound now.
  static func bind(handle: String, of userID: String, in database: any SQLDatabase) async throws -> Bool {
    guard let holder = try await MessagingAccountRepository.account(handle: handle, in: database) else { return false }
    return
      !(try await database.raw(
        """
        UPDATE messaging_contacts SET contact_user = \(bind: holder.userID)
        WHERE user_id = \(bind: userID) AND LOWER(handle) = \(bind: handle.lowercased()) AND contact_user = ''
        RETURNING contact_id
        """
      ).all()).isEmpty
  }

  static func decode(_ row: any SQLRow) throws -> StoredContact {
    StoredContact(
      id: try row.decode(column: "contact_id", as: String.self),
      displayName: try row.decode(column: "display_name", as: String.self),
      givenName: try row.decode(column: "given_name", as: String.self),
      familyName: try row.decode(column: "family_name", as: String.self),
      nickname: try row.decode(column: "nickname", as: String.self),
      handle: try row.decode(column: "handle", as: String.self),
      userID: try row.decode(column: "contact_user", as: String.self),
      hasAccount: try row.decodeFlag(column: "has_account"),
      messagingEnabled: try row.decodeFlag(column: "messaging_enabled"))
  }
}
