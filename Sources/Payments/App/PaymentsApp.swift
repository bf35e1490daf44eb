internal import Foundation
internal import SwiftProtobuf
internal import GRPCCore
internal import IntentMeshProtos
internal import PaymentsProtos
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// What UnicornPay's app does to a user's data: sign up, open and fund accounts, add payees. The
/// app service calls these after checking its input, and the demo data is made by the same calls;
/// each runs inside the caller's write transaction and refuses with the gRPC status the app API
/// answers.
enum PaymentsApp {
  /// Makes `profile` a UnicornPay user. ALREADY_EXISTS when the user or the handle exists.
  static func signUp(_ profile: StoredPaymentProfile, in database: any SQLDatabase) async throws {
    if try await StoredPaymentProfile.load(profile.userID, in: database) != nil {
      throw RPCError(code: .alreadyExists, message: "\(profile.userID) already has a UnicornPay profile")
    }
    if try await StoredPaymentProfile.load(handle: profile.handle, in: database) != nil {
      throw RPCError(code: .alreadyExists, message: "the handle \(profile.handle) is another user's")
    }
    try await profile.save(in: database)
  }

  /// The user's profile, or FAILED_PRECONDITION before SignUp.
  static func profile(of userID: String, in database: any SQLDatabase) async throws -> StoredPaymentProfile {
    guard let profile = try await StoredPaymentProfile.load(userID, in: database) else {
      throw RPCError(code: .failedPrecondition, message: "\(userID) has no UnicornPay profile: SignUp first")
    }
    return profile
  }

  /// Opens `account` for its owner with `opening` in it (an `opening` movement; nothing when
  /// zero). The first account in a currency, or one opened as default, becomes the default for
  /// it (the one before stops being).
  static func openAccount(
    _ account: StoredAccount, opening: Int64 = 0, at milliseconds: Int64, in database: any SQLDatabase
  ) async throws {
    let existing = try await AccountRepository.accounts(of: account.ownerID, in: database)
    var account = account
    account.isDefault = account.isDefault || !existing.contains { $0.isDefault && $0.currency == account.currency }
    if account.isDefault {
      try await AccountRepository.clearDefault(of: account.ownerID, currency: account.currency, in: database)
    }
    try await AccountRepository.insert(account, in: database)
    guard opening != 0 else { return }
    let source = try await Ledger.systemAccount(.opening, currency: account.currency, in: database)
    try await Ledger.post(
      .between(
        id: "opening-\(account.id)", userID: account.ownerID, kind: .opening, description: "opening balance",
        from: source, to: account.id, amount: Money(opening, account.currency)),
      at: milliseconds, in: database)
  }

  /// Moves `amount` in from outside UnicornPay to the user's account `accountID`. NOT_FOUND for an
  /// account that is not theirs; INVALID_ARGUMENT for an amount in another currency.
  static func addFunds(
    _ amount: Money, to accountID: String, of userID: String, movementID: String, at milliseconds: Int64,
    in database: any SQLDatabase
  ) async throws -> StoredAccount {
    guard let account = try await AccountRepository.account(accountID, in: database),
      UserIdentity.same(account.ownerID, userID),
      !account.isSystem
    else { throw RPCError(code: .notFound, message: "\(userID) has no account \(accountID)") }
    guard account.currency == amount.currency else {
      throw RPCError(
        code: .invalidArgument,
        message: "the account \(account.nickname) holds \(account.currency), not \(amount.currency)")
    }
    let source = try await Ledger.systemAccount(.deposits, currency: amount.currency, in: database)
    try await Ledger.post(
      .between(
        id: movementID, userID: userID, kind: .deposit, description: "funds added to \(account.nickname)",
        from: source, to: account.id, amount: amount),
      at: milliseconds, in: database)
    return try await AccountRepository.account(accountID, in: database) ?? account
  }

  /// Adds `payee` to the user's payees, bound to the user who holds its handle now. The same handle
  /// again binds a payee added before its holder signed up (the user says who they mean); otherwise
  /// ALREADY_EXISTS. INVALID_ARGUMENT for the user's own handle.
  static func addPayee(_ payee: StoredPayee, for userID: String, in database: any SQLDatabase) async throws
    -> StoredPayee
  {
    let profile = try await profile(of: userID, in: database)
    guard payee.handle.lowercased() != profile.handle.lowercased() else {
      throw RPCError(code: .invalidArgument, message: "a user cannot be their own payee")
    }
    if let existing = try await PayeeRepository.payee(withHandle: payee.handle, of: userID, in: database) {
      guard !existing.hasAccount, try await PayeeRepository.bind(handle: payee.handle, of: userID, in: database) else {
        throw RPCError(code: .alreadyExists, message: "\(payee.handle) is already among the payees")
      }
      return try await PayeeRepository.payee(withHandle: payee.handle, of: userID, in: database) ?? existing
    }
    try await PayeeRepository.add(payee, for: userID, in: database)
    return try await PayeeRepository.payee(withHandle: payee.handle, of: userID, in: database) ?? payee
  }
}
