internal import Foundation
internal import IntentMeshProtos
internal import IntentsKit
internal import PaymentsProtos
internal import IntentMeshCore

/// Short names for the generated payments contract.
typealias SendPaymentIntent = Intentmesh_Payments_V1_SendPaymentIntent
typealias SendPaymentIntentResponse = Intentmesh_Payments_V1_SendPaymentIntentResponse
typealias RequestPaymentIntent = Intentmesh_Payments_V1_RequestPaymentIntent
typealias RequestPaymentIntentResponse = Intentmesh_Payments_V1_RequestPaymentIntentResponse
typealias SearchForAccountsIntent = Intentmesh_Payments_V1_SearchForAccountsIntent
typealias SearchForAccountsIntentResponse = Intentmesh_Payments_V1_SearchForAccountsIntentResponse
typealias TransferMoneyIntent = Intentmesh_Payments_V1_TransferMoneyIntent
typealias TransferMoneyIntentResponse = Intentmesh_Payments_V1_TransferMoneyIntentResponse
typealias SearchForBillsIntent = Intentmesh_Payments_V1_SearchForBillsIntent
typealias SearchForBillsIntentResponse = Intentmesh_Payments_V1_SearchForBillsIntentResponse
typealias PayBillIntent = Intentmesh_Payments_V1_PayBillIntent
typealias PayBillIntentResponse = Intentmesh_Payments_V1_PayBillIntentResponse
typealias PaymentAccount = Intentmesh_Payments_V1_PaymentAccount
typealias PaymentAmount = Intentmesh_Payments_V1_PaymentAmount
typealias PaymentRecord = Intentmesh_Payments_V1_PaymentRecord
typealias PaymentStatus = Intentmesh_Payments_V1_PaymentStatus
typealias AccountType = Intentmesh_Payments_V1_AccountType
typealias BalanceType = Intentmesh_Payments_V1_BalanceType
typealias BalanceAmount = Intentmesh_Payments_V1_BalanceAmount
typealias AmountType = Intentmesh_Payments_V1_AmountType
typealias BillType = Intentmesh_Payments_V1_BillType
typealias BillPayee = Intentmesh_Payments_V1_BillPayee
typealias BillDetails = Intentmesh_Payments_V1_BillDetails
typealias PayeeUnsupportedReason = Intentmesh_Payments_V1_SendPaymentPayeeUnsupportedReason
typealias PayerUnsupportedReason = Intentmesh_Payments_V1_RequestPaymentPayerUnsupportedReason
typealias AmountUnsupportedReason = Intentmesh_Payments_V1_PaymentsCurrencyAmountUnsupportedReason
typealias Person = Intentmesh_V1_Person
typealias SpeakableString = Intentmesh_V1_SpeakableString
typealias CurrencyAmount = Intentmesh_V1_CurrencyAmount
typealias DateComponentsRange = Intentmesh_V1_DateComponentsRange

extension AccountType: ParameterValue {}
extension BalanceType: ParameterValue {}
extension BillType: ParameterValue {}
extension PaymentStatus: ParameterValue {}

extension PaymentAccount: ParameterValue {
  var displayText: String {
    if !nickname.spokenPhrase.isEmpty { return nickname.spokenPhrase }
    let parts = [organizationName.spokenPhrase, accountType == .unspecified ? "" : EnumCaseName.of(accountType)]
    return parts.filter { !$0.isEmpty }.joined(separator: " ")
  }

  /// The account the user agreed to — nickname, number, type, bank — without its balances, which
  /// move whenever money moves in or out while the user is asked (a yes stays a yes).
  var agreedForm: Self {
    guard hasBalance || hasSecondaryBalance else { return self }
    var agreed = self
    agreed.clearBalance()
    agreed.clearSecondaryBalance()
    return agreed
  }
}

extension PaymentAmount: ParameterValue {
  var displayText: String {
    if hasAmount { return DisplayText.currency(amount) }
    return amountType == .unspecified ? "" : EnumCaseName.of(amountType)
  }
}

extension BillPayee: ParameterValue {
  var displayText: String {
    nickname.spokenPhrase.isEmpty ? organizationName.spokenPhrase : nickname.spokenPhrase
  }
}
