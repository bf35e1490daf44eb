internal import Logging
internal import MessagingProtos
internal import IntentMeshProtos
internal import SwiftProtobuf
package import Foundation

/// A message in a user's mailbox: sent by the user (outgoing, one row per recipient) or received.
package struct StoredMessage: Sendable, Equatable {
  package var id: String
  package var userID: String
  package var conversationID: String
  package var outgoing: Bool
  /// The contact id of the sender, or the user's id for outgoing messages.
  package var senderID: String
  /// Contact ids of the recipients, or the user's id for incoming messages.
  package var recipientIDs: [String]
  package var content: String
  package var groupName: String
  package var sentAt: Date
  package var isRead: Bool
  package var isFlagged: Bool
  package var isPlayed: Bool
  /// `MessageType` number: text unless seeded otherwise.
  package var messageType: Int
  /// The Handle that wrote it; empty for seed data.
  package var intentIdentifier: String
  /// The message's number among those delivered to the user's mailbox (its arrival order); 0 for
  /// the user's own and older messages.
  package var arrival: Int64

  package init(
    id: String, userID: String, conversationID: String, outgoing: Bool, senderID: String, recipientIDs: [String],
    content: String, groupName: String = "", sentAt: Date, isRead: Bool = false, isFlagged: Bool = false,
    isPlayed: Bool = false, messageType: Int = 1, intentIdentifier: String = "", arrival: Int64 = 0
  ) {
    self.arrival = arrival
    self.id = id
    self.userID = userID
    self.conversationID = conversationID
    self.outgoing = outgoing
    self.senderID = senderID
    self.recipientIDs = recipientIDs
    self.content = content
    self.groupName = groupName
    self.sentAt = sentAt
    self.isRead = isRead
    self.isFlagged = isFlagged
    self.isPlayed = isPlayed
    self.messageType = messageType
    self.intentIdentifier = intentIdentifier
  }
}
