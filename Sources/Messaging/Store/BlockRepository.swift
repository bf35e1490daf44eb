internal import SQLKit

/// The handles each user blocks (stored lower case).
enum BlockRepository {
  static func set(_ handle: String, blocked: Bool, by userID: String, in database: any SQLDatabase) async throws {
    if blocked {
      try await database.raw(
        """
        INSERT INTO messaging_blocks (user_id, handle) VALUES (\(bind: userID), \(bind: handle.lowercased()))
        ON CONFLICT (user_id, handle) DO NOTHING
        """
      ).run()
    } else {
      try await database.raw(
        "DELETE FROM messaging_blocks WHERE user_id = \(bind: userID) AND handle = \(bind: handle.lowercased())"
      ).run()
    }
  }

  static func handles(blockedBy userID: String, in database: any SQLDatabase) async throws -> [String] {
    try await database.raw("SELECT handle FROM messaging_blocks WHERE user_id = \(bind: userID) ORDER BY handle")
      .all().map { try $0.decode(column: "handle", as: String.self) }
  }
}
