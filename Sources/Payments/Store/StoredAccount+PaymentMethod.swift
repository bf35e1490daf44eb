internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import PaymentsProtos

extension StoredAccount {
  /// The account as the `INPaymentMethod` of a payment record: its type, nickname and last digits.
  var paymentMethod: Intentmesh_V1_PaymentMethod {
    .with {
      $0.type =
        switch type {
        case .checking: .checking
        case .saving: .savings
        case .credit: .credit
        case .debit: .debit
        case .prepaid: .prepaid
        case .investment: .brokerage
        default: .unspecified
        }
      $0.name = nickname
      $0.identificationHint = String(accountNumber.suffix(4))
    }
  }
}
