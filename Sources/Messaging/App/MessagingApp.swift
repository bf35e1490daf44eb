internal import Foundation
internal import GRPCCore
internal import SQLKit

/// What UnicornChat's app does to a user's data: sign up, add a contact. The app service calls
/// these after checking its input, and the demo data is made by the same calls; each runs inside
/// the caller's write transaction and refuses with the gRPC status the app API answers.
enum MessagingApp {
  /// Makes `account` a UnicornChat user. ALREADY_EXISTS when the user or the handle exists.
  static func signUp(_ account: StoredMessagingAccount, in database: any SQLDatabase) async throws {
    if try await MessagingAccountRepository.account(of: account.userID, in: database) != nil {
      throw RPCError(code: .alreadyExists, message: "\(account.userID) already has a UnicornChat account")
    }
    if try await MessagingAccountRepository.account(handle: account.handle, in: database) != nil {
      throw RPCError(code: .alreadyExists, message: "the handle \(account.handle) is another user's")
    }
    try await MessagingAccountRepository.save(account, in: database)
  }

  /// Adds `contact` to the user's address book, bound to the user who holds its handle now; answers
  /// it as the book reads it. The same handle again binds a contact added before its holder signed
  /// up; otherwise ALREADY_EXISTS. FAILED_PRECONDITION before SignUp.
  static func addContact(_ contact: StoredContact, for userID: String, in database: any SQLDatabase) async throws
    -> StoredContact
  {
    guard try await MessagingAccountRepository.account(of: userID, in: database) != nil else {
      throw RPCError(code: .failedPrecondition, message: "\(userID) has no UnicornChat account: SignUp first")
    }
    if let existing = try await ContactRepository.contact(withHandle: contact.handle, of: userID, in: database) {
      // The same handle again binds a contact added before its holder signed up.
      guard !existing.hasAccount, try await ContactRepository.bind(handle: contact.handle, of: userID, in: database)
      else { throw RPCError(code: .alreadyExists, message: "\(contact.handle) is already in the address book") }
      return try await ContactRepository.contact(withHandle: contact.handle, of: userID, in: database) ?? existing
    }
    try await ContactRepository.add(contact, for: userID, in: database)
    return try await ContactRepository.contact(withHandle: contact.handle, of: userID, in: database) ?? contact
  }
}
