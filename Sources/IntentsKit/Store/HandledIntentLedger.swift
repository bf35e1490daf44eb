internal import IntentMeshCore
internal import IntentMeshProtos
package import Foundation
package import SQLKit

/// The exactly-once record of Handle: the answer to each (user, intent identifier), stored in the
/// same transaction as the handler's effect, so a retry finds it and replays it.
package enum HandledIntentLedger {
  /// An earlier Handle's record.
  package struct Entry: Sendable {
    package var intentClass: String
    /// The serialized `google.protobuf.Any` payload the earlier Handle was given.
    package var payload: Data
    /// The serialized `HandleResponse` it answered.
    package var response: Data

    package init(intentClass: String, payload: Data, response: Data) {
      self.intentClass = intentClass
      self.payload = payload
      self.response = response
    }
  }

  /// The record for (`userID`, `identifier`), if that intent was handled.
  package static func entry(userID: String, identifier: String, in database: any SQLDatabase) async throws -> Entry? {
    let rows = try await database.raw(
      """
      SELECT intent_class, payload, response FROM intentmesh_handled_intents
      WHERE user_id = \(bind: userID) AND intent_identifier = \(bind: identifier)
      """
    ).all()
    guard let row = rows.first else { return nil }
    return Entry(
      intentClass: try row.decode(column: "intent_class", as: String.self),
      payload: Data(base64Encoded: try row.decode(column: "payload", as: String.self)) ?? Data(),
      response: Data(base64Encoded: try row.decode(column: "response", as: String.self)) ?? Data()
    )
  }

  /// Records the answer; call inside the transaction that made the effect.
  package static func record(
    userID: String, identifier: String, entry: Entry, at millisecondsSince1970: Int64, in database: any SQLDatabase
  ) async throws {
    // Sent with the handler's writes still queued, just before the commit (PostgreSQL); a second
    // Handle of the identifier that recorded it first trips the key there.
    try await database.writeLater(
      """
      INSERT INTO intentmesh_handled_intents (user_id, intent_identifier, intent_class, payload, response, handled_at)
      VALUES (\(bind: userID), \(bind: identifier), \(bind: entry.intentClass),
              \(bind: Base64Text.encoded(entry.payload, .standard)), \(bind: Base64Text.encoded(entry.response, .standard)),
              \(bind: millisecondsSince1970))
      """)
  }
}
