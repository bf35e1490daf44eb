internal import Foundation
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit

/// The payment-transaction view of a payment sent: claims payee, amount and note on the first call.
struct SendPaymentViewController: IntentViewController {
  typealias Intent = SendPaymentIntent
  typealias Response = SendPaymentIntentResponse

  static let intentClass = SendPaymentHandler.intentClass

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard request.parameters.isEmpty else { return .declined }
    let record = request.response?.hasPaymentRecord == true ? request.response?.paymentRecord : nil
    return PaymentTransactionView.configuration(
      intentClass: Self.intentClass, personKey: "payee", personLabel: "To", methodLabel: "From",
      person: record?.hasPayee == true ? record!.payee : request.intent.payee,
      amount: record?.hasCurrencyAmount == true ? record!.currencyAmount : request.intent.currencyAmount,
      note: request.intent.note, record: record, isDraft: request.isDraft, maximumWidth: request.maximumSize.width)
  }
}
