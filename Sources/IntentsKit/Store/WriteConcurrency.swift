internal import IntentMeshCore

/// How a write transaction runs beside the store's other writes — on a store whose writers can
/// run at once (PostgreSQL, shared by replicas); a store with one writer (SQLite) runs every write
/// alone whatever it asks.
package enum WriteConcurrency: Sendable, Equatable {
  /// Alone: no other write of the store (of any replica) runs until it commits, so nothing it read
  /// moves under it. Every write that does not say otherwise.
  case serialized
  /// Beside other `.concurrent` writes (alone with respect to `.serialized` ones). What it read
  /// may move before it commits, so its effects must hold by their own statements: a conditional
  /// UPDATE that checks what it relies on, a unique key a duplicate trips. When one of those finds
  /// that what it read has moved, it throws `WriteConflict`, and the store rolls the transaction
  /// back and runs it again from the start — where it reads what moved.
  case concurrent
}

/// Thrown inside a `.concurrent` write when what it read has moved under it (a balance another
/// write spent): the store rolls back and runs the write again.
package struct WriteConflict: Error, CustomStringConvertible {
  package let description: String

  package init(_ description: String) {
    self.description = description
  }

  /// How many times a write is run before its conflict is reported (ABORTED).
  package static let attempts = 8

  /// Runs `write` until it ends without a `WriteConflict`, at most `attempts` times.
  package static func rerunning<T>(_ write: () async throws -> T) async throws -> T {
    var attempt = 1
    while true {
      do {
        return try await write()
      } catch let conflict as WriteConflict {
        guard attempt < attempts else { throw conflict.exhausted }
        attempt += 1
      }
    }
  }

  /// What a caller is told when every attempt conflicted: ABORTED, nothing stored.
  package var exhausted: any Error {
    IntentMeshError.writeConflict(
      "the write conflicted with concurrent writes \(Self.attempts) times (\(description)); try again")
  }
}
