internal import Foundation
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit

/// The payment-transaction view of a payment requested: claims payer, amount and note on the first
/// call.
struct RequestPaymentViewController: IntentViewController {
  typealias Intent = RequestPaymentIntent
  typealias Response = RequestPaymentIntentResponse

  static let intentClass = RequestPaymentHandler.intentClass

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard request.parameters.isEmpty else { return .declined }
    let record = request.response?.hasPaymentRecord == true ? request.response?.paymentRecord : nil
    return PaymentTransactionView.configuration(
      intentClass: Self.intentClass, personKey: "payer", personLabel: "From", methodLabel: "Into",
      person: record?.hasPayer == true ? record!.payer : request.intent.payer,
      amount: record?.hasCurrencyAmount == true ? record!.currencyAmount : request.intent.currencyAmount,
      note: request.intent.note, record: record, isDraft: request.isDraft, maximumWidth: request.maximumSize.width)
  }
}
