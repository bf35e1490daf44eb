internal import Foundation
internal import GRPCCore
internal import IntentMeshProtos
internal import IntentsKit
internal import MessagingProtos
internal import IntentMeshCore
internal import SQLKit
internal import SwiftProtobuf

/// `intentmesh.messaging.v1.UnicornChatApp`: UnicornChat's app side. Every call acts as the
/// caller's verified identity (the bearer token's subject, checked by the server's
/// `AuthenticationInterceptor`); a user reads and changes only their own account, address book
/// and mailbox.
struct UnicornChatAppService: Intentmesh_Messaging_V1_UnicornChatApp.SimpleServiceProtocol {
  private let store: any IntentStore
  private let identifiers: any IdentifierGenerator

  init(store: any IntentStore, identifiers: any IdentifierGenerator) {
    self.store = store
    self.identifiers = identifiers
  }

  func signUp(
    request: Intentmesh_Messaging_V1_SignUpRequest, context: ServerContext
  ) async throws -> Intentmesh_Messaging_V1_SignUpResponse {
    let userID = try UserIdentity.caller()
    let name = try AppInput.displayName(request.displayName)
    let handle = try AppInput.handle(request.handle)
    let account = StoredMessagingAccount(userID: userID, displayName: name, handle: handle)
    try await store.write { try await MessagingApp.signUp(account, in: $0) }
    return .with { $0.account = account.appAccount }
  }

  func getAccount(
    request: Intentmesh_Messaging_V1_GetAccountRequest, context: ServerContext
  ) async throws -> Intentmesh_Messaging_V1_GetAccountResponse {
    let userID = try UserIdentity.caller()
    guard let account = try await store.read({ try await MessagingAccountRepository.account(of: userID, in: $0) })
    else {
      throw RPCError(code: .notFound, message: "\(userID) has no UnicornChat account: SignUp first")
    }
    return .with { $0.account = account.appAccount }
  }

  func addContact(
    request: Intentmesh_Messaging_V1_AddContactRequest, context: ServerContext
  ) async throws -> Intentmesh_Messaging_V1_AddContactResponse {
    let userID = try UserIdentity.caller()
    let given = request.contact
    let handle = try AppInput.handle(given.handle)
    let name = try AppInput.displayName(
      given.displayName.isEmpty
        ? [given.givenName, given.familyName].filter { !$0.isEmpty }.joined(separator: " ")
        : given.displayName)
    // A contact given by its display name only is found by its first name too ("Ava").
    let words = name.split(separator: " ", maxSplits: 1).map(String.init)
    let named = !given.givenName.isEmpty || !given.familyName.isEmpty
    let contact = StoredContact(
      id: identifiers.next(), displayName: name, givenName: named ? given.givenName : words[0],
      familyName: named ? given.familyName : (words.count > 1 ? words[1] : ""), nickname: given.nickname,
      handle: handle)
    let added = try await store.write { try await MessagingApp.addContact(contact, for: userID, in: $0) }
    return .with { $0.contact = added.appContact }
  }

  func listContacts(
    request: Intentmesh_Messaging_V1_ListContactsRequest, context: ServerContext
  ) async throws -> Intentmesh_Messaging_V1_ListContactsResponse {
    let userID = try UserIdentity.caller()
    let contacts = try await store.read { try await ContactRepository.contacts(of: userID, in: $0) }
    return .with { $0.contacts = contacts.map(\.appContact) }
  }

  func listMessages(
    request: Intentmesh_Messaging_V1_ListMessagesRequest, context: ServerContext
  ) async throws -> Intentmesh_Messaging_V1_ListMessagesResponse {
    let userID = try UserIdentity.caller()
    guard (0...500).contains(request.limit) else {
      throw RPCError(code: .invalidArgument, message: "limit \(request.limit) is not within 1–500 (0: 100)")
    }
    let limit = request.limit == 0 ? 100 : Int(request.limit)
    let conversation = request.conversationIdentifier.isEmpty ? nil : request.conversationIdentifier
    let (messages, account, contacts) = try await store.read { database in
      (
        try await MessageRepository.messages(
          of: userID, conversation: conversation, unreadOnly: request.unreadOnly, limit: limit, in: database),
        try await MessagingAccountRepository.account(of: userID, in: database),
        try await ContactRepository.contacts(of: userID, in: database)
      )
    }
    return .with { $0.messages = messages.map { ChatMessage($0, account: account, contacts: contacts) } }
  }

  func setBlocked(
    request: Intentmesh_Messaging_V1_SetBlockedRequest, context: ServerContext
  ) async throws -> Intentmesh_Messaging_V1_SetBlockedResponse {
    let userID = try UserIdentity.caller()
    let handle = try AppInput.handle(request.handle)
    let blocked = try await store.write { database in
      guard let account = try await MessagingAccountRepository.account(of: userID, in: database) else {
        throw RPCError(code: .failedPrecondition, message: "\(userID) has no UnicornChat account: SignUp first")
      }
      guard handle != account.handle.lowercased() || !request.blocked else {
        throw RPCError(code: .invalidArgument, message: "a user cannot block their own handle")
      }
      try await BlockRepository.set(handle, blocked: request.blocked, by: userID, in: database)
      return try await BlockRepository.handles(blockedBy: userID, in: database)
    }
    return .with { $0.blockedHandles = blocked }
  }

}

extension StoredMessagingAccount {
  var appAccount: Intentmesh_Messaging_V1_Account {
    .with {
      $0.userID = userID
      $0.displayName = displayName
      $0.handle = handle
    }
  }
}

extension StoredContact {
  var appContact: Intentmesh_Messaging_V1_Contact {
    .with {
      $0.identifier = id
      $0.displayName = displayName
      $0.givenName = givenName
      $0.familyName = familyName
      $0.nickname = nickname
      $0.handle = handle
      $0.isUser = hasAccount
    }
  }
}
