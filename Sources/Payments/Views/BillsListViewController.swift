internal import Foundation
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import IntentMeshCore

/// The bills a search found ("what bills do I have due this week?"): one row per bill — payee,
/// amount due, due date and status — claiming the search's parameters once there is a result.
/// Before handle, or with nothing found, the host shows the default view of what was asked.
struct BillsListViewController: IntentViewController {
  typealias Intent = SearchForBillsIntent
  typealias Response = SearchForBillsIntentResponse

  static let intentClass = SearchForBillsHandler.intentClass
  static let claimed = ["billPayee", "paymentDateRange", "billType", "status", "dueDateRange"]

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard request.parameters.isEmpty, let response = request.response, !response.bills.isEmpty else {
      return .declined
    }
    let rows: [Intentmesh_V1_ViewNode] = response.bills.map { bill in
      .stack(
        .horizontal,
        [
          .text(bill.billPayee.nickname.spokenPhrase, role: "title"),
          .text(DisplayText.currency(bill.amountDue), role: "amount"),
          .text("due \(Self.dayText(bill.dueDate))", role: "subtitle"),
          .text(EnumCaseName.of(bill.paymentStatus), role: "status"),
        ], role: "bill")
    }
    let count = rows.count == 1 ? "1 bill" : "\(rows.count) bills"
    let view = Intentmesh_V1_View.with {
      $0.kind = "bills-list"
      $0.root = .stack(.vertical, [.text(count, role: "header")] + rows)
    }
    let parameters = Intentmesh_V1_Parameter.claims(of: Self.intentClass, Self.claimed)
    let width = request.maximumSize.width > 0 ? request.maximumSize.width : 320
    return .drawn(parameters, view: view, width: width, height: Double(40 + 44 * rows.count))
  }

  /// "2026-05-28".
  static func dayText(_ components: Intentmesh_V1_DateComponents) -> String {
    String(format: "%04d-%02d-%02d", components.year, components.month, components.day)
  }
}
