internal import Foundation
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// Finds the bills a spoken bill payee (and bill type) names, by payee nickname, organization name
/// or account number.
struct BillResolver: Sendable {
  let bills: [StoredBill]

  init(bills: [StoredBill]) { self.bills = bills }

  static func load(userID: String, from database: any SQLDatabase) async throws -> BillResolver {
    BillResolver(bills: try await BillRepository.bills(of: userID, in: database))
  }

  static func isEmpty(_ payee: BillPayee) -> Bool {
    payee.nickname.spokenPhrase.isEmpty && payee.nickname.vocabularyIdentifier.isEmpty
      && payee.organizationName.spokenPhrase.isEmpty && payee.accountNumber.isEmpty
  }

  /// The bills of `payee` (any payee when empty) and `type` (any when unspecified).
  func bills(payee: BillPayee, type: BillType = .unspecified) -> [StoredBill] {
    bills.filter { bill in
      if type != .unspecified, bill.type != type { return false }
      if !payee.nickname.vocabularyIdentifier.isEmpty { return bill.id == payee.nickname.vocabularyIdentifier }
      if !payee.accountNumber.isEmpty, bill.payeeAccountNumber != payee.accountNumber { return false }
      let phrases = [payee.nickname.spokenPhrase, payee.organizationName.spokenPhrase].filter { !$0.isEmpty }
      return phrases.allSatisfy { phrase in
        NameMatching.matches(phrase, bill.payeeNickname) || NameMatching.matches(phrase, bill.payeeOrganization)
      }
    }
  }

  /// The distinct payees among `bills`, in due-date order.
  static func payees(of bills: [StoredBill]) -> [StoredBill] {
    var seen = Set<String>()
    return bills.filter { seen.insert(NameMatching.normalized($0.payeeNickname)).inserted }
  }

  /// A search's payee: one payee → success; several → disambiguation; none → unsupported.
  func resolveSearchPayee(_ payee: BillPayee) -> ResolutionResult<BillPayee> {
    guard !Self.isEmpty(payee) else { return .notRequired }
    let found = Self.payees(of: bills(payee: payee))
    switch found.count {
    case 0: return .unsupported(ResolutionReason(message: "You have no bills from \(payee.displayText)."))
    case 1: return .success(Self.payeeWithoutBill(found[0].payee))
    default: return .disambiguation(found.map { Self.payeeWithoutBill($0.payee) }, prompt: "Which biller?")
    }
  }

  /// PayBill's payee: the one unpaid bill of that payee and type → success (identified by the
  /// bill); several → disambiguation between bills; none → unsupported; nothing given → needs value.
  func resolveBillToPay(_ payee: BillPayee, type: BillType) -> ResolutionResult<BillPayee> {
    guard !Self.isEmpty(payee) || type != .unspecified else {
      return .needsValue(prompt: "Which bill do you want to pay?")
    }
    let unpaid = bills(payee: payee, type: type).filter(\.isPayable)
    switch unpaid.count {
    case 0:
      let named = Self.isEmpty(payee) ? EnumCaseName.of(type) : payee.displayText
      return .unsupported(ResolutionReason(message: "You have no unpaid \(named) bill."))
    case 1: return .success(unpaid[0].payee)
    default: return .disambiguation(unpaid.map(\.payee), prompt: "Which bill?")
    }
  }

  /// The one unpaid bill `payee` and `type` name.
  func billToPay(_ payee: BillPayee, type: BillType) -> StoredBill? {
    let unpaid = bills(payee: payee, type: type).filter(\.isPayable)
    return unpaid.count == 1 ? unpaid[0] : nil
  }

  /// A payee as a search names it: the biller, not one of its bills.
  static func payeeWithoutBill(_ payee: BillPayee) -> BillPayee {
    var payee = payee
    payee.nickname.vocabularyIdentifier = ""
    return payee
  }
}
