internal import SwiftProtobuf
internal import Foundation
package import IntentMeshProtos
package import SQLKit

/// A user's vocabulary (SiriKit's `INVocabulary`): ordered phrases per vocabulary type, each set
/// replaced as a whole, feeding resolution (unicorn names, account nicknames, list titles).
package enum UserVocabulary {
  /// One phrase and what it names.
  package struct Entry: Sendable, Equatable {
    package var phrase: String
    /// The app's identifier of what the phrase names ("scott"); empty for a plain string.
    package var vocabularyIdentifier: String

    package init(phrase: String, vocabularyIdentifier: String = "") {
      self.phrase = phrase
      self.vocabularyIdentifier = vocabularyIdentifier
    }
  }

  /// SiriKit discards strings longer than this many UTF-16 code units.
  static let maximumUTF16Length = 1024

  /// The kept entries of a request, in order, without duplicates, and how many were discarded.
  package static func entries(of request: Intentmesh_V1_SetUserVocabularyRequest) -> (kept: [Entry], discarded: Int) {
    let all =
      request.strings.map { Entry(phrase: $0) }
      + request.speakables.map { Entry(phrase: $0.spokenPhrase, vocabularyIdentifier: $0.vocabularyIdentifier) }
    var kept: [Entry] = []
    var seen = Set<String>()
    var discarded = 0
    for entry in all {
      let phrase = entry.phrase.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !phrase.isEmpty, phrase.utf16.count <= maximumUTF16Length else {
        discarded += 1
        continue
      }
      guard seen.insert(phrase.lowercased()).inserted else { continue }
      kept.append(Entry(phrase: phrase, vocabularyIdentifier: entry.vocabularyIdentifier))
    }
    return (kept, discarded)
  }

  /// Replaces the user's whole set of `type` with `entries`.
  package static func replace(
    userID: String, type: Intentmesh_V1_VocabularyStringType, with entries: [Entry], in database: any SQLDatabase
  ) async throws {
    try await database.raw(
      "DELETE FROM intentmesh_user_vocabulary WHERE user_id = \(bind: userID) AND vocabulary_type = \(bind: type.rawValue)"
    ).run()
    for (position, entry) in entries.enumerated() {
      try await database.raw(
        """
        INSERT INTO intentmesh_user_vocabulary (user_id, vocabulary_type, position, phrase, vocabulary_identifier)
        VALUES (\(bind: userID), \(bind: type.rawValue), \(bind: position), \(bind: entry.phrase), \(bind: entry.vocabularyIdentifier))
        """
      ).run()
    }
  }

  /// The user's entries of `type`, most important first; kept across requests (`cachedRead`) until
  /// the vocabulary changes, so a resolver rebuilt because its other tables moved reads none again.
  package static func entries(
    userID: String, type: Intentmesh_V1_VocabularyStringType, in database: any SQLDatabase
  ) async throws -> [Entry] {
    try await database.cachedRead("vocabulary.\(type.rawValue)", userID: userID) {
      try await database.raw(
        """
        SELECT phrase, vocabulary_identifier FROM intentmesh_user_vocabulary
        WHERE user_id = \(bind: userID) AND vocabulary_type = \(bind: type.rawValue) ORDER BY position
        """
      ).all().map {
        Entry(
          phrase: try $0.decode(column: "phrase", as: String.self),
          vocabularyIdentifier: try $0.decode(column: "vocabulary_identifier", as: String.self))
      }
    }
  }

  /// The user's entries of each of `types`, most important first, in one statement; kept across
  /// requests like `entries(userID:type:)`.
  package static func entries(
    userID: String, types: [Intentmesh_V1_VocabularyStringType], in database: any SQLDatabase
  ) async throws -> [Intentmesh_V1_VocabularyStringType: [Entry]] {
    let key = "vocabulary." + types.map { String($0.rawValue) }.joined(separator: ",")
    return try await database.cachedRead(key, userID: userID) {
      var placeholders: [SQLQueryString] = []
      for type in types { placeholders.append("\(bind: type.rawValue)") }
      var found: [Intentmesh_V1_VocabularyStringType: [Entry]] = [:]
      for type in types { found[type] = [] }
      for row in try await database.raw(
        """
        SELECT vocabulary_type, phrase, vocabulary_identifier FROM intentmesh_user_vocabulary
        WHERE user_id = \(bind: userID) AND vocabulary_type IN (\(placeholders.joined(separator: ", ")))
        ORDER BY vocabulary_type, position
        """
      ).all() {
        let type = Intentmesh_V1_VocabularyStringType(rawValue: try row.decode(column: "vocabulary_type", as: Int.self))
        guard let type else { continue }
        found[type, default: []].append(
          Entry(
            phrase: try row.decode(column: "phrase", as: String.self),
            vocabularyIdentifier: try row.decode(column: "vocabulary_identifier", as: String.self)))
      }
      return found
    }
  }
}
