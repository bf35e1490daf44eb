internal import Foundation
internal import Logging
internal import MessagingProtos
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import IntentMeshCore

extension ChatMessage {
  /// The wire form of a stored message, with people filled in from the address book.
  init(_ stored: StoredMessage, account: StoredMessagingAccount?, contacts: [StoredContact]) {
    func person(_ id: String) -> Intentmesh_V1_Person {
      if let account, UserIdentity.same(id, account.userID) { return account.person }
      return contacts.first { $0.id == id }?.person
        ?? .with {
          $0.customIdentifier = id; $0.displayName = id
        }
    }
    self.init()
    identifier = stored.id
    conversationIdentifier = stored.conversationID
    content = stored.content
    dateSent = Google_Protobuf_Timestamp(date: stored.sentAt)
    sender = person(stored.senderID)
    recipients = stored.recipientIDs.map(person)
    if !stored.groupName.isEmpty { groupName = .with { $0.spokenPhrase = stored.groupName } }
    messageType = Intentmesh_Messaging_V1_MessageType(rawValue: stored.messageType) ?? .text
    serviceName = "UnicornChat"
    attributes = .with {
      $0.read = stored.isRead
      $0.unread = !stored.isRead
      $0.flagged = stored.isFlagged
      $0.unflagged = !stored.isFlagged
      $0.played = stored.isPlayed
    }
  }
}
