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

  init(contacts: [StoredContact], vocabulary: [UserVocabulary.Entry]) {
    self.contacts = contacts
    self.vocabulary = vocabulary
  }

  /// The user's contacts and contact-name vocabulary, read from `database`.
  static func load(userID: String, from database: any SQLDatabase) async throws -> PersonResolver {
    PersonResolver(
      contacts: try await ContactRepository.contacts(of: userID, in: database),
      vocabulary: try await UserVocabulary.entries(userID: userID, type: .contactName, in: database))
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
    var found: [StoredContact] = []
    func add(_ contact: StoredContact) {
      if !found.contains(where: { $0.id == contact.id }) { found.append(contact) }
    }
    for entry in vocabulary
    where NameMatching.matches(normalized: wanted, entry.phrase) && !entry.vocabularyIdentifier.isEmpty {
      contacts.filter { $0.id == entry.vocabularyIdentifier }.forEach(add)
    }
    for contact in contacts {
      let names = [
        contact.displayName, contact.givenName, contact.nickname, contact.handle,
        "\(contact.givenName) \(contact.familyName)",
      ]
      if names.contains(where: { NameMatching.matches(normalized: wanted, $0) }) { add(contact) }
    }
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
