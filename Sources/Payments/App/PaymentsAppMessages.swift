internal import Foundation
internal import IntentMeshProtos
internal import PaymentsProtos
internal import SwiftProtobuf

/// The app API's messages for the stored rows.
extension StoredPaymentProfile {
  var appProfile: Intentmesh_Payments_V1_Profile {
    .with {
      $0.userID = userID
      $0.displayName = displayName
      $0.handle = handle
      $0.homeCurrency = homeCurrency
    }
  }
}

extension StoredAccount {
  var appAccount: Intentmesh_Payments_V1_Account {
    .with {
      $0.identifier = id
      $0.nickname = nickname
      $0.type = type
      $0.organizationName = organizationName
      $0.accountNumber = accountNumber
      $0.balance = balance.currencyAmount
      $0.isDefault = isDefault
    }
  }
}

extension StoredPayee {
  var appPayee: Intentmesh_Payments_V1_Payee {
    .with {
      $0.identifier = id
      $0.displayName = displayName
      $0.givenName = givenName
      $0.familyName = familyName
      $0.handle = handle
      $0.isUser = hasAccount
    }
  }
}

extension StoredPaymentRecord {
  var appPayment: Intentmesh_Payments_V1_Payment {
    .with {
      $0.identifier = id
      $0.direction =
        switch direction {
        case .send: .sent
        case .receive: .received
        case .request: .requested
        }
      $0.counterpartyName = counterpartyName
      $0.counterpartyHandle = counterpartyHandle
      $0.amount = amount.currencyAmount
      $0.note = note
      $0.status = status
      $0.accountIdentifier = accountID
      $0.createdAtMs = createdAt
    }
  }
}

extension StoredBill {
  /// A request bill as the payer sees it, with the request's note and time.
  func appRequest(_ request: StoredPaymentRecord?) -> Intentmesh_Payments_V1_PaymentRequest {
    .with {
      $0.identifier = id
      $0.requesterName = payeeNickname
      $0.requesterHandle = payeeAccountNumber
      $0.amount = (request?.amount ?? amountDue).currencyAmount
      $0.note = request?.note ?? ""
      $0.status = status
      $0.createdAtMs = request?.createdAt ?? 0
    }
  }
}
