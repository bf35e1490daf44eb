package import SQLKit
internal import IntentMeshCore

/// A database that can keep what a transaction read for later transactions, for as long as none of
/// the tables it was read from has changed. SQLite can tell (`SQLiteStore`: a version per table,
/// moved by triggers on every write, and the tables each statement reads); a store that cannot —
/// PostgreSQL, whose replicas do not hear each other's writes — does not conform, and every read
/// goes to the database.
package protocol ReadCachingDatabase: SQLDatabase {
  /// The value kept under `key` when the tables it was read from are unchanged since it was
  /// loaded; otherwise `load`'s value, run in this transaction and kept.
  func cachedRead<Value: Sendable>(_ key: ReadCacheKey, _ load: () async throws -> Value) async throws -> Value
}

/// What a kept read is: a domain's name for the read, and the user it was read for — compared
/// and hashed byte for byte (`UserKey`): two users whose ids are canonically equivalent text are
/// two keys, as they are two users to the store.
package struct ReadCacheKey: Hashable, Sendable {
  package let read: String
  private let user: UserKey
  package var userID: String { user.id }

  package init(_ read: String, userID: String) {
    self.read = read
    self.user = UserKey(userID)
  }

  package static func == (lhs: ReadCacheKey, rhs: ReadCacheKey) -> Bool {
    lhs.user == rhs.user && lhs.read.utf8.elementsEqual(rhs.read.utf8)
  }

  package func hash(into hasher: inout Hasher) {
    hasher.combine(user)
    var read = read
    read.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
  }
}

extension SQLDatabase {
  /// `load`'s value for `userID`, reused by later transactions while the tables it read have not
  /// changed: a committed write to one of them — of this process or another — or one earlier in
  /// this transaction makes the next call load again. `load` must only read, and its value must
  /// depend on the store's contents alone (not on the clock); the cached reads it makes count as
  /// its own reads.
  package func cachedRead<Value: Sendable>(
    _ read: String, userID: String, _ load: () async throws -> Value
  ) async throws -> Value {
    guard let caching = self as? any ReadCachingDatabase else { return try await load() }
    return try await caching.cachedRead(ReadCacheKey(read, userID: userID), load)
  }
}
