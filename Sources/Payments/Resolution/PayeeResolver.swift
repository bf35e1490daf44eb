internal import Foundation
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// Finds the payees a spoken person names — by identifier, by the user's contact-name vocabulary, or
/// by display, given or full name or handle — and applies SendPayment's and RequestPayment's rules.
struct PayeeResolver: Sendable {
  let payees: [StoredPayee]
  let vocabulary: [UserVocabulary.Entry]
  /// Each payee's names (display, given, handle, given + family), folded once when the resolver is
  /// made, in the order of `payees`.
  private let payeeNames: [[String]]
  /// Each vocabulary phrase, folded, in the order of `vocabulary`.
  private let vocabularyPhrases: [String]

  init(payees: [StoredPayee], vocabulary: [UserVocabulary.Entry]) {
    self.payees = payees
    self.vocabulary = vocabulary
    payeeNames = payees.map { payee in
      [payee.displayName, payee.givenName, payee.handle, "\(payee.givenName) \(payee.familyName)"].map(
        NameMatching.normalized)
    }
    vocabularyPhrases = vocabulary.map { NameMatching.normalized($0.phrase) }
  }

  /// The user's payees and contact-name vocabulary — or, while the store is unchanged since an
  /// earlier request read them, that request's resolver.
  static func load(userID: String, from database: any SQLDatabase) async throws -> PayeeResolver {
    try await database.cachedRead("payments.payee-resolver", userID: userID) {
      PayeeResolver(
        payees: try await PayeeRepository.payees(of: userID, in: database),
        vocabulary: try await UserVocabulary.entries(userID: userID, type: .contactName, in: database))
    }
  }

  /// The name a person is asked for by.
  static func spokenName(of person: Intentmesh_V1_Person) -> String { person.spokenName }

  /// The payees `person` may mean, best first; an identified person means exactly that payee.
  func candidates(for person: Intentmesh_V1_Person) -> [StoredPayee] {
    let id = person.customIdentifier.isEmpty ? person.contactIdentifier : person.customIdentifier
    if !id.isEmpty { return payees.filter { $0.id == id } }
    let name = Self.spokenName(of: person)
    guard !name.isEmpty else { return [] }
    let wanted = NameMatching.normalized(name)
    guard !wanted.isEmpty else { return [] }
    var found: [StoredPayee] = []
    func add(_ payee: StoredPayee) {
      if !found.contains(where: { $0.id == payee.id }) { found.append(payee) }
    }
    // By index, not by zip: a zip hands out a copy of every payee (a retain and a release of each of
    // its strings), matching or not.
    for index in vocabulary.indices
    where vocabularyPhrases[index] == wanted && !vocabulary[index].vocabularyIdentifier.isEmpty {
      let identifier = vocabulary[index].vocabularyIdentifier
      payees.filter { $0.id == identifier }.forEach(add)
    }
    for index in payees.indices where payeeNames[index].contains(wanted) { add(payees[index]) }
    return found
  }

  /// The one payee `person` names, when it names exactly one.
  func payee(for person: Intentmesh_V1_Person) -> StoredPayee? {
    let found = candidates(for: person)
    return found.count == 1 ? found[0] : nil
  }

  /// SendPayment's payee rule: one usable payee → success; several → "Which …?"; none or an
  /// unusable one → unsupported with SiriKit's reason. `shortfall` is true when the amount asked
  /// exceeds what the paying account has.
  func resolvePayee(_ person: Intentmesh_V1_Person, shortfall: Bool) -> ResolutionResult<Intentmesh_V1_Person> {
    resolve(
      person, role: "payee", pay: "pay",
      reasons: (PayeeUnsupportedReason.noAccount, .noValidHandle, .credentialsUnverified),
      shortfall: shortfall ? PayeeUnsupportedReason.insufficientFunds : nil)
  }

  /// RequestPayment's payer rule.
  func resolvePayer(_ person: Intentmesh_V1_Person) -> ResolutionResult<Intentmesh_V1_Person> {
    resolve(
      person, role: "payer", pay: "ask",
      reasons: (PayerUnsupportedReason.noAccount, .noValidHandle, .credentialsUnverified), shortfall: nil)
  }

  /// The rule both share, with each intent's own reason enum.
  private func resolve<Reason: SwiftProtobuf.Enum>(
    _ person: Intentmesh_V1_Person, role: String, pay verb: String,
    reasons: (noAccount: Reason, noValidHandle: Reason, credentialsUnverified: Reason), shortfall: Reason?
  ) -> ResolutionResult<Intentmesh_V1_Person> {
    let name = person.spokenName
    let found = candidates(for: person)
    switch found.count {
    case 0:
      return .unsupported(
        ResolutionReason(
          reasons.noAccount,
          name.isEmpty ? "That \(role) has no name or handle." : "No one named \(name) is in your UnicornPay contacts.")
      )
    case 1:
      let payee = found[0]
      if payee.handle.isEmpty {
        return .unsupported(
          ResolutionReason(reasons.noValidHandle, "\(payee.displayName) has no UnicornPay handle to \(verb)."))
      }
      if !payee.hasAccount {
        return .unsupported(ResolutionReason(reasons.noAccount, "\(payee.displayName) has no UnicornPay account."))
      }
      if !payee.credentialsVerified {
        return .unsupported(
          ResolutionReason(
            reasons.credentialsUnverified, "\(payee.displayName) has not verified their UnicornPay account yet."))
      }
      if let shortfall {
        return .unsupported(
          ResolutionReason(shortfall, "You don't have enough money to pay \(payee.displayName) that."))
      }
      return .success(payee.person)
    default:
      return .disambiguation(found.map(\.person), prompt: "Which \(name)?")
    }
  }
}
