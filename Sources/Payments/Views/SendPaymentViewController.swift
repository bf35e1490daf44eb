internal import Foundation
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
package import IntentsKit

/// The payment-transaction view of a payment sent: claims payee, amount and note on the first call.
package struct SendPaymentViewController: IntentViewController {
  package typealias Intent = SendPaymentIntent
  package typealias Response = SendPaymentIntentResponse

  package static let intentClass = SendPaymentHandler.intentClass

  package init() {}

  package func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard request.parameters.isEmpty else { return .declined }
    let record = request.response?.hasPaymentRecord == true ? request.response?.paymentRecord : nil
    return PaymentTransactionView.configuration(
      intentClass: Self.intentClass, personKey: "payee", personLabel: "To", methodLabel: "From",
      person: record?.hasPayee == true ? record!.payee : request.intent.payee,
      amount: record?.hasCurrencyAmount == true ? record!.currencyAmount : request.intent.currencyAmount,
      note: request.intent.note, record: record, isDraft: request.isDraft, maximumWidth: request.maximumSize.width)
  }
}
