internal import Foundation
internal import SwiftProtobuf
internal import PaymentsProtos
package import IntentMeshProtos
package import IntentsKit
internal import ServiceKit

/// SiriKit's payment-transaction view (displaysPaymentTransaction): who, how much, the note and the
/// status, drawn for a sent or requested payment — a draft before handle, the record after.
package enum PaymentTransactionView {
  /// Draws the view and claims the intent's `personKey`, currencyAmount and note.
  package static func configuration(
    intentClass: String, personKey: String, personLabel: String, person: Intentmesh_V1_Person,
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
      rows.append(.row("From", "\(record.paymentMethod.name) ••\(record.paymentMethod.identificationHint)"))
    }
    rows.append(.text(status, role: "status"))
    let view = Intentmesh_V1_View.with {
      $0.kind = "payment-transaction"
      $0.root = .stack(.vertical, rows)
    }
    let parameters = [personKey, "currencyAmount", "note"].map { keyPath in
      Intentmesh_V1_Parameter.with {
        $0.parameterClass = intentClass
        $0.keyPath = keyPath
      }
    }
    return .drawn(
      parameters, view: view, width: maximumWidth > 0 ? maximumWidth : 320, height: Double(40 + 28 * rows.count))
  }
}
