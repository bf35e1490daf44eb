internal import Foundation
internal import Logging
internal import SwiftProtobuf
package import IntentMeshProtos
internal import IntentsKit
package import PaymentsProtos
internal import ServiceKit

/// Short names for the generated payments contract.
package typealias SendPaymentIntent = Intentmesh_Payments_V1_SendPaymentIntent
package typealias SendPaymentIntentResponse = Intentmesh_Payments_V1_SendPaymentIntentResponse
package typealias RequestPaymentIntent = Intentmesh_Payments_V1_RequestPaymentIntent
package typealias RequestPaymentIntentResponse = Intentmesh_Payments_V1_RequestPaymentIntentResponse
package typealias SearchForAccountsIntent = Intentmesh_Payments_V1_SearchForAccountsIntent
package typealias SearchForAccountsIntentResponse = Intentmesh_Payments_V1_SearchForAccountsIntentResponse
package typealias TransferMoneyIntent = Intentmesh_Payments_V1_TransferMoneyIntent
package typealias TransferMoneyIntentResponse = Intentmesh_Payments_V1_TransferMoneyIntentResponse
package typealias SearchForBillsIntent = Intentmesh_Payments_V1_SearchForBillsIntent
package typealias SearchForBillsIntentResponse = Intentmesh_Payments_V1_SearchForBillsIntentResponse
package typealias PayBillIntent = Intentmesh_Payments_V1_PayBillIntent
package typealias PayBillIntentResponse = Intentmesh_Payments_V1_PayBillIntentResponse
package typealias PaymentAccount = Intentmesh_Payments_V1_PaymentAccount
package typealias PaymentAmount = Intentmesh_Payments_V1_PaymentAmount
package typealias PaymentRecord = Intentmesh_Payments_V1_PaymentRecord
package typealias PaymentStatus = Intentmesh_Payments_V1_PaymentStatus
package typealias AccountType = Intentmesh_Payments_V1_AccountType
package typealias BalanceType = Intentmesh_Payments_V1_BalanceType
package typealias BalanceAmount = Intentmesh_Payments_V1_BalanceAmount
package typealias AmountType = Intentmesh_Payments_V1_AmountType
package typealias BillType = Intentmesh_Payments_V1_BillType
package typealias BillPayee = Intentmesh_Payments_V1_BillPayee
package typealias BillDetails = Intentmesh_Payments_V1_BillDetails
package typealias PayeeUnsupportedReason = Intentmesh_Payments_V1_SendPaymentPayeeUnsupportedReason
package typealias PayerUnsupportedReason = Intentmesh_Payments_V1_RequestPaymentPayerUnsupportedReason
package typealias AmountUnsupportedReason = Intentmesh_Payments_V1_PaymentsCurrencyAmountUnsupportedReason
package typealias Person = Intentmesh_V1_Person
package typealias SpeakableString = Intentmesh_V1_SpeakableString
package typealias CurrencyAmount = Intentmesh_V1_CurrencyAmount
package typealias DateComponentsRange = Intentmesh_V1_DateComponentsRange

extension AccountType: ParameterValue {}
extension BalanceType: ParameterValue {}
extension BillType: ParameterValue {}
extension PaymentStatus: ParameterValue {}

extension PaymentAccount: ParameterValue {
  package var displayText: String {
    if !nickname.spokenPhrase.isEmpty { return nickname.spokenPhrase }
    let parts = [organizationName.spokenPhrase, accountType == .unspecified ? "" : EnumCaseName.of(accountType)]
    return parts.filter { !$0.isEmpty }.joined(separator: " ")
  }
}

extension PaymentAmount: ParameterValue {
  package var displayText: String {
    if hasAmount { return DisplayText.currency(amount) }
    return amountType == .unspecified ? "" : EnumCaseName.of(amountType)
  }
}

extension BillPayee: ParameterValue {
  package var displayText: String {
    nickname.spokenPhrase.isEmpty ? organizationName.spokenPhrase : nickname.spokenPhrase
  }
}
