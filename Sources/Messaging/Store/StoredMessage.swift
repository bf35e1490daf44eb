internal import MessagingProtos
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import Foundation

/// A message in a user's mailbox: sent by the user (outgoing, one row per recipient) or received.
struct StoredMessage: Sendable, Equatable {
  var id: String
  var userID: String
  var conversationID: String
  var outgoing: Bool
  /// The contact id of the sender, or the user's id for outgoing messages.
  var senderID: String
  /// Contact ids of the recipients, or the user's id for incoming messages.
  var recipientIDs: [String]
  var content: String
  var groupName: String
  var sentAt: Date
  var isRead: Bool
  var isFlagged: Bool
  var isPlayed: Bool
  /// `MessageType` number: text unless seeded otherwise.
  var messageType: Int
  /// The Handle that wrote it; empty for seed data.
  var intentIdentifier: String
  /// The message's number among those delivered to the user's mailbox (its arrival order); 0 for
  /// the user's own and older messages.
  var arrival: Int64

  init(
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
