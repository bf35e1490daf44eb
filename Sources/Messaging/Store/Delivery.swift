internal import Foundation
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// What makes a message reach its recipient: a message to a contact whose handle is a user's of
/// this service is also stored in that user's mailbox, as an unread incoming message, in the
/// transaction that stores the sender's copy — both or neither — with the next arrival number of
/// the recipient's mailbox (what a live search follows).
enum Delivery {
  /// Delivers `message` (the sender's outgoing copy, to `contact`) when the contact is a user here
  /// (the one it is bound to) with the service on; does nothing otherwise (the sender's copy is all
  /// there is).
  static func deliver(
    _ message: StoredMessage, from sender: StoredMessagingAccount, to contact: StoredContact,
    identifiers: any IdentifierGenerator, in database: any SQLDatabase
  ) async throws {
    guard !contact.userID.isEmpty,
      let recipient = try await MessagingAccountRepository.account(of: contact.userID, in: database),
      !UserIdentity.same(recipient.userID, sender.userID), recipient.serviceEnabled
    else { return }
    // The sender as the recipient knows them: their contact with the sender's handle, else the handle.
    let known = try await ContactRepository.contact(withHandle: sender.handle, of: recipient.userID, in: database)
    let senderID = known?.id ?? sender.handle
    try await MessageRepository.insert(
      StoredMessage(
        id: identifiers.next(), userID: recipient.userID, conversationID: "conversation-\(senderID)",
        outgoing: false, senderID: senderID, recipientIDs: [recipient.userID], content: message.content,
        groupName: message.groupName, sentAt: message.sentAt, isRead: false, messageType: message.messageType,
        intentIdentifier: message.intentIdentifier,
        arrival: try await MessageRepository.nextArrival(of: recipient.userID, in: database)),
      in: database)
  }
}
