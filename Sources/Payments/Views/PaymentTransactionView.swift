internal import Foundation
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import IntentMeshCore

/// SiriKit's payment-transaction view (displaysPaymentTransaction): who, how much, the note and the
/// status, drawn for a sent or requested payment — a draft before handle, the record after.
enum PaymentTransactionView {
  /// Draws the view and claims the intent's `personKey`, currencyAmount and note. The record's
  /// payment method is the account paid from (`methodLabel` "From") or into ("Into").
  static func configuration(
    intentClass: String, personKey: String, personLabel: String, methodLabel: String, person: Intentmesh_V1_Person,
    amount: Intentmesh_V1_CurrencyAmount, note: String, record: PaymentRecord?, isDraft: Bool,
    maximumWidth: Double
  ) -> ViewConfiguration {
    let status: String
    if let record, record.status != .unspecified, !isDraft {
      status = EnumCaseName.of(record.status)
    } else {
      status = "draft"
    }
    var rows: [Intentmesh_V1_ViewNode] = [
      .row(personLabel, person.isAbsent ? "—" : person.displayText, parameter: personKey),
      .text(amount.isAbsent ? "—" : DisplayText.currency(amount), role: "amount", parameter: "currencyAmount"),
    ]
    if !note.isEmpty { rows.append(.text(note, role: "note", parameter: "note")) }
    if let record, record.hasPaymentMethod, !record.paymentMethod.name.isEmpty {
      let hint = record.paymentMethod.identificationHint
      rows.append(
        .row(methodLabel, hint.isEmpty ? record.paymentMethod.name : "\(record.paymentMethod.name) ••\(hint)"))
    }
    rows.append(.text(status, role: "status"))
    let view = Intentmesh_V1_View.with {
      $0.kind = "payment-transaction"
      $0.root = .stack(.vertical, rows)
    }
    let parameters = Intentmesh_V1_Parameter.claims(of: intentClass, [personKey, "currencyAmount", "note"])
    return .drawn(
      parameters, view: view, width: maximumWidth > 0 ? maximumWidth : 320, height: Double(40 + 28 * rows.count))
  }
}
