internal import Foundation
internal import Logging
internal import MessagingProtos
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// Finds the contacts a spoken person names: by identifier, by the user's vocabulary (unicorn names
/// such as "Sparkle Sparkly" → Scott), or by display, given, nick name or handle.
struct PersonResolver: Sendable {
  let contacts: [StoredContact]
  let vocabulary: [UserVocabulary.Entry]
  /// Each contact's names (display, given, nick, handle, given + family), folded once when the
  /// resolver is made, in the order of `contacts`.
  private let contactNames: [[String]]
  /// Each vocabulary phrase, folded, in the order of `vocabulary`.
  private let vocabularyPhrases: [String]

  init(contacts: [StoredContact], vocabulary: [UserVocabulary.Entry]) {
    self.contacts = contacts
    self.vocabulary = vocabulary
    contactNames = contacts.map { contact in
      [
        contact.displayName, contact.givenName, contact.nickname, contact.handle,
        "\(contact.givenName) \(contact.familyName)",
      ].map(NameMatching.normalized)
    }
    vocabularyPhrases = vocabulary.map { NameMatching.normalized($0.phrase) }
  }

  /// The user's contacts and contact-name vocabulary, read from `database` — or, while the store
  /// is unchanged since an earlier request read them, that request's resolver.
  static func load(userID: String, from database: any SQLDatabase) async throws -> PersonResolver {
    try await database.cachedRead("messaging.person-resolver", userID: userID) {
      PersonResolver(
        contacts: try await ContactRepository.contacts(of: userID, in: database),
        vocabulary: try await UserVocabulary.entries(userID: userID, type: .contactName, in: database))
    }
  }

  /// The name a person is asked for by.
  static func spokenName(of person: Intentmesh_V1_Person) -> String { person.spokenName }

  /// The contacts `person` may mean, best first. An identified person means exactly that contact.
  func candidates(for person: Intentmesh_V1_Person) -> [StoredContact] {
    let id = person.customIdentifier.isEmpty ? person.contactIdentifier : person.customIdentifier
    if !id.isEmpty { return contacts.filter { $0.id == id } }
    let name = Self.spokenName(of: person)
    guard !name.isEmpty else { return [] }
    let wanted = NameMatching.normalized(name)
    guard !wanted.isEmpty else { return [] }
    var found: [StoredContact] = []
    func add(_ contact: StoredContact) {
      if !found.contains(where: { $0.id == contact.id }) { found.append(contact) }
    }
    // By index, not by zip: a zip hands out a copy of every contact (a retain and a release of each
    // of its strings), matching or not.
    for index in vocabulary.indices
    where vocabularyPhrases[index] == wanted && !vocabulary[index].vocabularyIdentifier.isEmpty {
      let identifier = vocabulary[index].vocabularyIdentifier
      contacts.filter { $0.id == identifier }.forEach(add)
    }
    for index in contacts.indices where contactNames[index].contains(wanted) { add(contacts[index]) }
    return found
  }

  /// SendMessage's rule for one recipient: one reachable contact → success; several → "Which …?";
  /// none → unsupported with the reason SiriKit has for it.
  func resolveRecipient(_ person: Intentmesh_V1_Person) -> ResolutionResult<Intentmesh_V1_Person> {
    let name = Self.spokenName(of: person)
    let found = candidates(for: person)
    switch found.count {
    case 0:
      let identified = !(person.customIdentifier.isEmpty && person.contactIdentifier.isEmpty)
      return identified
        ? .unsupported(
          ResolutionReason(
            RecipientUnsupportedReason.requestedHandleInvalid,
            "No contact with identifier \(person.customIdentifier.isEmpty ? person.contactIdentifier : person.customIdentifier) is in your UnicornChat contacts."
          ))
        : .unsupported(
          ResolutionReason(
            RecipientUnsupportedReason.noValidHandle,
            name.isEmpty
              ? "That recipient has no name or handle." : "No one named \(name) is in your UnicornChat contacts."
          ))
    case 1:
      let contact = found[0]
      if !contact.hasAccount {
        return .unsupported(
          ResolutionReason(RecipientUnsupportedReason.noAccount, "\(contact.displayName) has no UnicornChat account."))
      }
      if !contact.messagingEnabled {
        return .unsupported(
          ResolutionReason(
            RecipientUnsupportedReason.messagingServiceNotEnabledForRecipient,
            "\(contact.displayName) has turned off UnicornChat messages."))
      }
      return .success(contact.person)
    default:
      return .disambiguation(found.map(\.person), prompt: "Which \(name)?")
    }
  }

  /// The rule for people in a search: one → success, several → disambiguation, none → unsupported.
  func resolveSearchPerson(_ person: Intentmesh_V1_Person) -> ResolutionResult<Intentmesh_V1_Person> {
    let name = Self.spokenName(of: person)
    let found = candidates(for: person)
    switch found.count {
    case 0: return .unsupported(ResolutionReason(message: "No one named \(name) is in your UnicornChat contacts."))
    case 1: return .success(found[0].person)
    default: return .disambiguation(found.map(\.person), prompt: "Which \(name)?")
    }
  }
}
