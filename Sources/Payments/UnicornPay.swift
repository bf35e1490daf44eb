internal import Foundation
internal import Logging
internal import IntentMeshProtos
internal import SwiftProtobuf
package import IntentsKit

/// UnicornPay, the payments domain of sessions 217 and 214: six intents on a double-entry ledger,
/// the payment-transaction and accounts-list views, its schema and demo data.
package enum UnicornPay {
  /// The service's default port.
  package static let defaultPort = 50062

  /// The domain as the runtime runs it; `identifiers` makes movement, record and schedule ids.
  package static func definition(
    identifiers: any IdentifierGenerator = UUIDIdentifierGenerator(), settlementInterval: Duration = .seconds(60)
  ) -> DomainDefinition {
    DomainDefinition(
      serviceName: "payments-service",
      vocabularyTypes: [.contactName, .paymentsAccountNickname, .paymentsOrganizationName],
      migrations: PaymentsSchema.migrations,
      seed: PaymentsSeed.seed,
      maintenance: DomainMaintenance(interval: settlementInterval) { store, now, logger in
        let settled = try await ScheduledSettlement.settleDue(store: store, now: now, identifiers: identifiers)
        if settled > 0 { logger.info("settled scheduled payments", metadata: ["count": "\(settled)"]) }
      },
      appServiceNames: ["intentmesh.payments.v1.UnicornPayApp"],
      appServices: { resources in [UnicornPayAppService(store: resources.store, identifiers: identifiers)] }
    ) { resources in
      let store = resources.store
      return IntentRegistry([
        .handler(SendPaymentHandler.self, view: AnyIntentViewController(SendPaymentViewController())) {
          SendPaymentHandler(store: store, identifiers: identifiers)
        },
        .handler(RequestPaymentHandler.self, view: AnyIntentViewController(RequestPaymentViewController())) {
          RequestPaymentHandler(store: store, identifiers: identifiers)
        },
        .handler(SearchForAccountsHandler.self, view: AnyIntentViewController(AccountsListViewController())) {
          SearchForAccountsHandler(store: store)
        },
        .handler(TransferMoneyHandler.self) { TransferMoneyHandler(store: store, identifiers: identifiers) },
        .handler(SearchForBillsHandler.self, view: AnyIntentViewController(BillsListViewController())) {
          SearchForBillsHandler(store: store)
        },
        .handler(PayBillHandler.self) { PayBillHandler(store: store, identifiers: identifiers) },
      ])
    }
  }
}
