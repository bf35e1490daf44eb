internal import Foundation
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// Finds the user's accounts a spoken account names (session 214: by nickname such as "Rainbow
/// Savings" — registered as paymentsAccountNickname vocabulary — by organization name, by type, or
/// by account number) and resolves account parameters.
struct AccountResolver: Sendable {
  let accounts: [StoredAccount]
  let nicknames: [UserVocabulary.Entry]
  let organizations: [UserVocabulary.Entry]
  /// The currency an amount without one means: the user's home currency.
  let defaultCurrency: String

  init(
    accounts: [StoredAccount], nicknames: [UserVocabulary.Entry] = [], organizations: [UserVocabulary.Entry] = [],
    defaultCurrency: String = "USD"
  ) {
    self.accounts = accounts
    self.defaultCurrency = defaultCurrency
    self.nicknames = nicknames
    self.organizations = organizations
  }

  /// The user's accounts and account vocabulary; `profile`, when the caller has read it already,
  /// spares reading it again for the home currency. While the store is unchanged since an earlier
  /// request read them, that request's resolver.
  static func load(userID: String, profile: StoredPaymentProfile? = nil, from database: any SQLDatabase)
    async throws -> AccountResolver
  {
    try await database.cachedRead("payments.account-resolver", userID: userID) {
      let homeCurrency: String
      if let profile {
        homeCurrency = profile.homeCurrency
      } else {
        homeCurrency = try await StoredPaymentProfile.load(userID, in: database)?.homeCurrency ?? "USD"
      }
      let vocabulary = try await UserVocabulary.entries(
        userID: userID, types: [.paymentsAccountNickname, .paymentsOrganizationName], in: database)
      return AccountResolver(
        accounts: try await AccountRepository.accounts(of: userID, in: database),
        nicknames: vocabulary[.paymentsAccountNickname] ?? [],
        organizations: vocabulary[.paymentsOrganizationName] ?? [],
        defaultCurrency: homeCurrency)
    }
  }

  /// True when `account` names nothing at all.
  static func isEmpty(_ account: PaymentAccount) -> Bool {
    account.nickname.spokenPhrase.isEmpty && account.nickname.vocabularyIdentifier.isEmpty
      && account.accountNumber.isEmpty && account.organizationName.spokenPhrase.isEmpty
      && account.accountType == .unspecified
  }

  /// The accounts whose nickname is `nickname`: by vocabulary identifier, by the account's nickname,
  /// or by a vocabulary phrase that names an account.
  func matching(nickname: Intentmesh_V1_SpeakableString) -> [StoredAccount] {
    if !nickname.vocabularyIdentifier.isEmpty {
      let identified = accounts.filter { $0.id == nickname.vocabularyIdentifier }
      if !identified.isEmpty { return identified }
    }
    let phrase = nickname.spokenPhrase
    let ids = Set(nicknames.filter { NameMatching.matches(phrase, $0.phrase) }.map(\.vocabularyIdentifier))
    let exact = accounts.filter { ids.contains($0.id) || NameMatching.matches(phrase, $0.nickname) }
    if !exact.isEmpty { return exact }
    // "Rainbow" may mean "Rainbow Checking" or "Rainbow Savings": nicknames whose first words are the phrase.
    let words = Self.words(phrase)
    guard !words.isEmpty else { return [] }
    return accounts.filter { Array(Self.words($0.nickname).prefix(words.count)) == words }
  }

  static func words(_ text: String) -> [String] {
    text.split(whereSeparator: { $0.isWhitespace }).map { NameMatching.normalized(String($0)) }.filter {
      !$0.isEmpty
    }
  }

  /// The accounts held at `organization`, by name or by a vocabulary phrase for it.
  func matching(organization: Intentmesh_V1_SpeakableString) -> [StoredAccount] {
    let phrase = organization.spokenPhrase
    let names = Set(
      organizations.filter { NameMatching.matches(phrase, $0.phrase) }.map {
        NameMatching.normalized($0.vocabularyIdentifier.isEmpty ? $0.phrase : $0.vocabularyIdentifier)
      })
    return accounts.filter {
      NameMatching.matches(phrase, $0.organizationName) || names.contains(NameMatching.normalized($0.organizationName))
    }
  }

  /// The accounts `account` may mean: each field it gives narrows the set.
  func candidates(for account: PaymentAccount) -> [StoredAccount] {
    guard !Self.isEmpty(account) else { return [] }
    var found = accounts
    if !account.nickname.spokenPhrase.isEmpty || !account.nickname.vocabularyIdentifier.isEmpty {
      let named = Set(matching(nickname: account.nickname).map(\.id))
      found = found.filter { named.contains($0.id) }
    }
    if !account.accountNumber.isEmpty {
      found = found.filter { $0.accountNumber == account.accountNumber || $0.id == account.accountNumber }
    }
    if !account.organizationName.spokenPhrase.isEmpty {
      let held = Set(matching(organization: account.organizationName).map(\.id))
      found = found.filter { held.contains($0.id) }
    }
    if account.accountType != .unspecified {
      found = found.filter { $0.type == account.accountType }
    }
    return found
  }

  /// The account `account` names when it names exactly one.
  func account(for account: PaymentAccount) -> StoredAccount? {
    let found = candidates(for: account)
    return found.count == 1 ? found[0] : nil
  }

  /// One account → success; several → "Which account?"; none → unsupported; nothing named → the
  /// prompt as needs_value.
  func resolve(_ account: PaymentAccount, prompt: String) -> ResolutionResult<PaymentAccount> {
    guard !Self.isEmpty(account) else { return .needsValue(prompt: prompt) }
    let found = candidates(for: account)
    switch found.count {
    case 0:
      return .unsupported(ResolutionReason(message: "You have no UnicornPay account called \(account.displayText)."))
    case 1:
      return .success(found[0].paymentAccount)
    default:
      return .disambiguation(found.map(\.paymentAccount), prompt: "Which \(account.displayText) account?")
    }
  }

  /// The account payments in `currency` are made from.
  func defaultAccount(currency: String) -> StoredAccount? {
    accounts.first { $0.isDefault && $0.currency == currency }
  }
}
