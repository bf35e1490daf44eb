internal import IntentsKit
internal import Foundation
internal import MessagingProtos
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import SQLKit

/// A user's own UnicornChat account: whether they are signed in and the service is on for them.
struct StoredMessagingAccount: Sendable, Equatable {
  var userID: String
  var displayName: String
  var handle: String
  var signedIn: Bool
  var serviceEnabled: Bool

  init(userID: String, displayName: String, handle: String, signedIn: Bool = true, serviceEnabled: Bool = true) {
    self.userID = userID
    self.displayName = displayName
    self.handle = handle
    self.signedIn = signedIn
    self.serviceEnabled = serviceEnabled
  }

  /// The user as a message sender.
  var person: Intentmesh_V1_Person {
    .with {
      $0.displayName = displayName
      $0.customIdentifier = userID
      $0.isMe = true
      $0.personHandle = .appHandle(handle)
    }
  }

  /// The link a contact code carries.
  var contactLink: String { "unicornchat://contact/\(userID)?handle=\(handle)" }
}

/// Reads and writes accounts.
enum MessagingAccountRepository {
  static func account(of userID: String, in database: any SQLDatabase) async throws -> StoredMessagingAccount? {
    try await database.cachedRead("messaging.account", userID: userID) {
      try await database.raw(
        """
        SELECT user_id, display_name, handle, signed_in, service_enabled FROM messaging_accounts
        WHERE user_id = \(bind: userID)
        """
      ).first().map(decode)
    }
  }

  /// The user whose handle this is (handles are compared as given, without case).
  static func account(handle: String, in database: any SQLDatabase) async throws -> StoredMessagingAccount? {
    try await database.raw(
      """
      SELECT user_id, display_name, handle, signed_in, service_enabled FROM messaging_accounts
      WHERE LOWER(handle) = \(bind: handle.lowercased())
      """
    ).first().map(decode)
  }

  private static func decode(_ row: any SQLRow) throws -> StoredMessagingAccount {
    StoredMessagingAccount(
      userID: try row.decode(column: "user_id", as: String.self),
      displayName: try row.decode(column: "display_name", as: String.self),
      handle: try row.decode(column: "handle", as: String.self),
      signedIn: try row.decodeFlag(column: "signed_in"),
      serviceEnabled: try row.decodeFlag(column: "service_enabled")
    )
  }

  static func save(_ account: StoredMessagingAccount, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO messaging_accounts (user_id, display_name, handle, signed_in, service_enabled)
      VALUES (\(bind: account.userID), \(bind: account.displayName), \(bind: account.handle),
              \(bind: account.signedIn.rowValue), \(bind: account.serviceEnabled.rowValue))
      ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name, handle = excluded.handle,
        signed_in = excluded.signed_in, service_enabled = excluded.service_enabled
      """
    ).run()
  }
}
