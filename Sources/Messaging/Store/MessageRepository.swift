internal import IntentsKit
internal import Logging
internal import MessagingProtos
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import Foundation
internal import SQLKit

/// Every user's messages.
enum MessageRepository {
  static func insert(_ message: StoredMessage, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO messaging_messages (message_id, user_id, conversation_id, outgoing, sender_id, recipient_ids, content,
        group_name, sent_at, is_read, is_flagged, is_played, message_type, intent_identifier, arrival)
      VALUES (\(bind: message.id), \(bind: message.userID), \(bind: message.conversationID), \(bind: message.outgoing.rowValue),
        \(bind: message.senderID), \(bind: message.recipientIDs.joined(separator: ",")), \(bind: message.content),
        \(bind: message.groupName), \(bind: message.sentAt.epochMilliseconds), \(bind: message.isRead.rowValue),
        \(bind: message.isFlagged.rowValue), \(bind: message.isPlayed.rowValue), \(bind: message.messageType),
        \(bind: message.intentIdentifier), \(bind: message.arrival))
      """
    ).run()
  }

  /// The user's messages sent in [from, to] (either bound may be open), newest first.
  static func messages(
    of userID: String, from: Date? = nil, to: Date? = nil, in database: any SQLDatabase
  ) async throws -> [StoredMessage] {
    let lower = from.map(\.epochMilliseconds) ?? Int64.min
    let upper = to.map(\.epochMilliseconds) ?? Int64.max
    return try await database.raw(
      """
      SELECT * FROM messaging_messages
      WHERE user_id = \(bind: userID) AND sent_at >= \(bind: lower) AND sent_at <= \(bind: upper)
      ORDER BY sent_at DESC, message_id
      """
    ).all().map(decode)
  }

  /// The user's newest `limit` messages, of one conversation (or all), only unread ones if asked.
  static func messages(
    of userID: String, conversation: String?, unreadOnly: Bool, limit: Int, in database: any SQLDatabase
  ) async throws -> [StoredMessage] {
    let conversationFilter: SQLQueryString =
      conversation.map { "AND conversation_id = \(bind: $0)" } ?? ""
    let unreadFilter: SQLQueryString = unreadOnly ? "AND is_read = 0" : ""
    return try await database.raw(
      """
      SELECT * FROM messaging_messages WHERE user_id = \(bind: userID) \(conversationFilter) \(unreadFilter)
      ORDER BY sent_at DESC, message_id LIMIT \(bind: limit)
      """
    ).all().map(decode)
  }

  /// The user's messages with these ids (others' messages are not found).
  static func messages(
    withIDs ids: [String], of userID: String, in database: any SQLDatabase
  ) async throws -> [StoredMessage] {
    var found: [StoredMessage] = []
    for id in ids {
      let rows = try await database.raw(
        "SELECT * FROM messaging_messages WHERE user_id = \(bind: userID) AND message_id = \(bind: id)"
      ).all()
      found += try rows.map(decode)
    }
    return found
  }

  /// The user's messages delivered after arrival number `after`, in arrival order.
  static func arrivals(of userID: String, after: Int64, in database: any SQLDatabase) async throws
    -> [StoredMessage]
  {
    try await database.raw(
      """
      SELECT * FROM messaging_messages WHERE user_id = \(bind: userID) AND arrival > \(bind: after)
      ORDER BY arrival
      """
    ).all().map(decode)
  }

  /// The number of the last message delivered to the user (0: none yet).
  static func lastArrival(of userID: String, in database: any SQLDatabase) async throws -> Int64 {
    try await database.raw("SELECT arrivals FROM messaging_accounts WHERE user_id = \(bind: userID)").first()?
      .decode(column: "arrivals", as: Int64.self) ?? 0
  }

  /// Takes the user's next arrival number (in the caller's transaction, which holds the account row).
  static func nextArrival(of userID: String, in database: any SQLDatabase) async throws -> Int64 {
    try await database.raw(
      "UPDATE messaging_accounts SET arrivals = arrivals + 1 WHERE user_id = \(bind: userID) RETURNING arrivals"
    ).first()?.decode(column: "arrivals", as: Int64.self) ?? 0
  }

  /// Stores the flags of `message`.
  static func updateFlags(of message: StoredMessage, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      UPDATE messaging_messages SET is_read = \(bind: message.isRead.rowValue), is_flagged = \(bind: message.isFlagged.rowValue),
        is_played = \(bind: message.isPlayed.rowValue)
      WHERE user_id = \(bind: message.userID) AND message_id = \(bind: message.id)
      """
    ).run()
  }

  static func decode(_ row: any SQLRow) throws -> StoredMessage {
    let recipients = try row.decode(column: "recipient_ids", as: String.self)
    return StoredMessage(
      id: try row.decode(column: "message_id", as: String.self),
      userID: try row.decode(column: "user_id", as: String.self),
      conversationID: try row.decode(column: "conversation_id", as: String.self),
      outgoing: try row.decodeFlag(column: "outgoing"),
      senderID: try row.decode(column: "sender_id", as: String.self),
      recipientIDs: recipients.isEmpty ? [] : recipients.split(separator: ",").map(String.init),
      content: try row.decode(column: "content", as: String.self),
      groupName: try row.decode(column: "group_name", as: String.self),
      sentAt: Date(epochMilliseconds: try row.decode(column: "sent_at", as: Int64.self)),
      isRead: try row.decodeFlag(column: "is_read"),
      isFlagged: try row.decodeFlag(column: "is_flagged"),
      isPlayed: try row.decodeFlag(column: "is_played"),
      messageType: try row.decode(column: "message_type", as: Int.self),
      intentIdentifier: try row.decode(column: "intent_identifier", as: String.self),
      arrival: try row.decode(column: "arrival", as: Int64.self)
    )
  }
}
