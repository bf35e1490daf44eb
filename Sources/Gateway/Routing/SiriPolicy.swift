internal import IntentMeshProtos
internal import SwiftProtobuf
/// Rules Siri applies whatever a domain declares.
enum SiriPolicy {
  /// SiriKit asks the user to unlock the device for every payments intent.
  static let paymentsIntents: Set<String> = [
    "INSendPaymentIntent", "INRequestPaymentIntent", "INSearchForBillsIntent", "INPayBillIntent",
    "INTransferMoneyIntent", "INSearchForAccountsIntent",
  ]

  /// Whether `intentClass` may not run on a locked device, given what its domain declared.
  static func restrictedWhileLocked(_ intentClass: String, declaredRestricted: Bool) -> Bool {
    declaredRestricted || paymentsIntents.contains(intentClass)
  }
}
