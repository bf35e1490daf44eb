internal import Foundation
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import IntentMeshCore

/// The accounts list of session 214: one row per account found — nickname, organization and the
/// balance asked for — claiming the search's parameters once there is a result. Before handle there
/// is nothing to list, and the host shows the default view of what was asked.
struct AccountsListViewController: IntentViewController {
  typealias Intent = SearchForAccountsIntent
  typealias Response = SearchForAccountsIntentResponse

  static let intentClass = SearchForAccountsHandler.intentClass
  static let claimed = ["accountNickname", "accountType", "organizationName", "requestedBalanceType"]

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard request.parameters.isEmpty, let response = request.response, !response.accounts.isEmpty else {
      return .declined
    }
    let rows: [Intentmesh_V1_ViewNode] = response.accounts.map { account in
      .stack(
        .horizontal,
        [
          .text(account.nickname.spokenPhrase, role: "title"),
          .text(account.organizationName.spokenPhrase, role: "subtitle"),
          .text(Self.balanceText(account.balance), role: "amount"),
        ], role: "account")
    }
    let view = Intentmesh_V1_View.with {
      $0.kind = "accounts-list"
      $0.root = .stack(.vertical, rows)
    }
    let parameters = Intentmesh_V1_Parameter.claims(of: Self.intentClass, Self.claimed)
    let width = request.maximumSize.width > 0 ? request.maximumSize.width : 320
    return .drawn(parameters, view: view, width: width, height: Double(16 + 44 * rows.count))
  }

  /// "1,250.00 USD", "12500 miles".
  static func balanceText(_ balance: BalanceAmount) -> String {
    switch balance.balanceType {
    case .points, .miles: "\(balance.units) \(EnumCaseName.of(balance.balanceType))"
    default: "\(DisplayText.decimal(units: balance.units, nanos: balance.nanos)) \(balance.currencyCode)"
    }
  }
}
