import Foundation
import GRPCCore
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
@testable import Payments
import PaymentsProtos
import SQLKit
import SwiftProtobuf
import Testing

@Suite("payments-service over an in-process transport: manifest, exactly-once, concurrency, views")
struct PaymentsServiceTests {
  let domain = InProcessDomain(
    definition: UnicornPay.definition(identifiers: SequentialIdentifierGenerator(prefix: "svc")),
    manifestDirectory: PaymentsFixture.manifest, now: { PaymentsFixture.now })

  static let context = Intentmesh_V1_RequestContext.with {
    $0.userID = "diana"
    $0.timeZone = "Europe/Zurich"
  }

  static func intent<M: SwiftProtobuf.Message>(_ intentClass: String, _ message: M, identifier: String = "") throws
    -> Intentmesh_V1_Intent
  {
    try .with {
      $0.intentClass = intentClass
      $0.identifier = identifier
      $0.payload = try .init(message: message)
    }
  }

  static func payment(_ units: Int64, to payee: String = "Buttercup", identifier: String) throws -> Intentmesh_V1_Intent
  {
    try intent(
      "INSendPaymentIntent",
      SendPaymentIntent.with {
        $0.payee = person(payee); $0.currencyAmount = usd(units)
      }, identifier: identifier)
  }

  @Test("Describe: six intents, every one restricted while locked and confirmed by the user before handle")
  func describe() async throws {
    try await domain.run { client, _, _, _ in
      let manifest = try await client.describe(.init()).manifest
      #expect(manifest.appName == "UnicornPay")
      #expect(manifest.alternativeAppNames.map(\.name) == ["Unicorn", "CornPay"])
      #expect(
        manifest.intents.map(\.intentClass) == [
          "INSendPaymentIntent", "INRequestPaymentIntent", "INSearchForAccountsIntent", "INTransferMoneyIntent",
          "INSearchForBillsIntent", "INPayBillIntent",
        ])
      let restricted = manifest.intents.filter(\.restrictedWhileLocked).count
      #expect(restricted == 6)
      let confirmed = manifest.intents.filter(\.requiresUserConfirmation).count
      #expect(confirmed == 6)
      #expect(
        manifest.intents.first { $0.intentClass == "INSearchForAccountsIntent" }?.confirmationPrompt
          == "Do you want to see your balances?")
      #expect(manifest.vocabularyTypes == [.contactName, .paymentsAccountNickname, .paymentsOrganizationName])
    }
  }

  @Test("a payment while locked is refused before any handler runs")
  func locked() async throws {
    try await domain.run { client, _, _, store in
      var locked = Self.context
      locked.deviceLocked = true
      await #expect(throws: RPCError.self) {
        _ = try await client.confirmAndHandle(
          .with {
            $0.context = locked; $0.intent = try Self.payment(85, identifier: "locked-1")
          })
      }
      let balance = try await store.read { try await AccountRepository.account("diana-checking", in: $0)?.balanceMinor }
      #expect(balance == 125_000)
    }
  }

  @Test(
    "Handle is idempotent per intent identifier: a retry replays and moves money once; other parameters are refused")
  func idempotent() async throws {
    try await domain.run { client, _, _, store in
      let first = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context; $0.intent = try Self.payment(85, identifier: "pay-1")
        })
      #expect(first.response.codeName == "success")
      #expect(!first.replayed)
      let retry = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context; $0.intent = try Self.payment(85, identifier: "pay-1")
        })
      #expect(retry.replayed)
      #expect(retry.response.payload == first.response.payload)
      do {
        _ = try await client.confirmAndHandle(
          .with {
            $0.context = Self.context; $0.intent = try Self.payment(90, identifier: "pay-1")
          })
        Issue.record("expected FAILED_PRECONDITION")
      } catch let error as RPCError {
        #expect(error.code == .failedPrecondition)
        #expect(error.message.contains("pay-1"))
      }
      let balance = try await store.read { try await AccountRepository.account("diana-checking", in: $0)?.balanceMinor }
      #expect(balance == 116_500)
      let problems = try await store.read { try await LedgerAudit.problems(in: $0) }
      #expect(problems.isEmpty)
    }
  }

  @Test("two users paying each other, transfers and retries at once never overdraw and conserve money")
  func concurrency() async throws {
    try await domain.run { client, _, _, store in
      // Scott can pay Diana, with 1,000.00 more in his checking (1,020.00 in all).
      try await store.write { database in
        _ = try await PaymentsApp.addPayee(
          StoredPayee(id: "diana", displayName: "Diana Huang", givenName: "Diana", handle: "diana@unicornpay.example"),
          for: "scott", in: database)
        _ = try await PaymentsApp.addFunds(
          Money(100_000, "USD"), to: "scott-checking", of: "scott", movementID: "deposit-scott", at: 0, in: database)
      }
      let scott = Intentmesh_V1_RequestContext.with {
        $0.userID = "scott"
        $0.timeZone = "Europe/Zurich"
      }
      // Out of Diana's Rainbow Checking (1,250.00): 20 transfers of 50.00 and 30 payments of 100.00
      // to Scott; out of Scott's: 30 payments of 100.00 to Diana. All confirmed at once; each one
      // the user said yes to is then handled twice at once with the same identifier (a retry racing
      // the first try).
      let transfers = try (0..<20).map { index in
        try Self.intent(
          "INTransferMoneyIntent",
          TransferMoneyIntent.with {
            $0.fromAccount = account(nickname: "Rainbow Checking"); $0.toAccount = account(nickname: "Rainbow Savings")
            $0.transactionAmount = amount(50)
          }, identifier: "transfer-\(index)")
      }
      let toScott = try (0..<30).map { try Self.payment(100, to: "Scott", identifier: "to-scott-\($0)") }
      let toDiana = try (0..<30).map { try Self.payment(100, to: "Diana", identifier: "to-diana-\($0)") }
      let calls = (transfers + toScott).map { (Self.context, $0) } + toDiana.map { (scott, $0) }
      let results = try await withThrowingTaskGroup(of: [(String, String, Bool)].self) { group in
        for (context, intent) in calls {
          group.addTask {
            let confirmed = try await client.confirm(
              .with {
                $0.context = context; $0.intent = intent
              })
            guard !confirmed.confirmationToken.isEmpty else {
              // Refused before the user's yes (the money was gone by then): a client stops here.
              return [(intent.identifier, confirmed.response.codeName, false)]
            }
            let handle = Intentmesh_V1_HandleRequest.with {
              $0.context = context; $0.intent = intent; $0.confirmationToken = confirmed.confirmationToken
            }
            async let first = client.handle(handle)
            async let second = client.handle(handle)
            return try await [first, second].map { (intent.identifier, $0.response.codeName, $0.replayed) }
          }
        }
        return try await group.reduce(into: []) { $0 += $1 }
      }
      // Each identifier handled answered the same way both times, once for real.
      let byIdentifier = Dictionary(grouping: results, by: \.0)
      #expect(byIdentifier.count == 80)
      for (identifier, answers) in byIdentifier {
        #expect(Set(answers.map(\.1)).count == 1, "\(identifier)")
        #expect(answers.filter { !$0.2 }.count == 1, "\(identifier)")
        if answers.count == 1 { #expect(answers[0].1 == "failureInsufficientFunds", "\(identifier)") }
      }
      #expect(byIdentifier.values.allSatisfy { ["success", "failureInsufficientFunds"].contains($0[0].1) })
      let succeeded = byIdentifier.filter { $0.value[0].1 == "success" }.map(\.key)
      let toScottPaid = Int64(succeeded.filter { $0.hasPrefix("to-scott-") }.count)
      let toDianaPaid = Int64(succeeded.filter { $0.hasPrefix("to-diana-") }.count)
      let moved = Int64(succeeded.filter { $0.hasPrefix("transfer-") }.count)
      // Scott had enough for at least ten payments whatever came in.
      #expect(toDianaPaid >= 10)
      let (checking, savings, scottChecking, problems, records) = try await store.read { database in
        (
          try await AccountRepository.account("diana-checking", in: database)!.balanceMinor,
          try await AccountRepository.account("diana-savings", in: database)!.balanceMinor,
          try await AccountRepository.account("scott-checking", in: database)!.balanceMinor,
          try await LedgerAudit.problems(in: database),
          try await PaymentRecordRepository.records(of: "scott", in: database)
        )
      }
      #expect(checking == 125_000 - toScottPaid * 10_000 - moved * 5_000 + toDianaPaid * 10_000)
      #expect(savings == 500_000 + moved * 5_000)
      #expect(scottChecking == 102_000 - toDianaPaid * 10_000 + toScottPaid * 10_000)
      #expect(checking >= 0 && scottChecking >= 0)
      #expect(problems.isEmpty)
      // Every payment is on both sides' books, once.
      #expect(records.filter { $0.direction == .send }.count == Int(toDianaPaid))
      #expect(records.filter { $0.direction == .receive }.count == Int(toScottPaid))
      let total = try await store.read { database in
        try await database.raw(
          "SELECT CAST(SUM(balance_minor) AS BIGINT) AS total FROM payments_accounts WHERE currency = 'USD'"
        )
        .first()!.decode(column: "total", as: Int64.self)
      }
      #expect(total == 0)
    }
  }

  @Test("ConfigureView: a bill search draws the bills it found; before handle, or finding none, it declines")
  func billsView() async throws {
    try await domain.run { client, _, _, _ in
      let search = try Self.intent(
        "INSearchForBillsIntent", SearchForBillsIntent.with { $0.status = .unpaid }, identifier: "bills-1")
      let handled = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context; $0.intent = search
        })
      let drawn = try await client.configureView(
        .with {
          $0.context = Self.context; $0.interaction = handled.interaction
        })
      #expect(drawn.configured)
      #expect(drawn.view.kind == "bills-list")
      let rows = drawn.view.root.stack.children
      #expect(rows.first?.text.text == "3 bills")
      #expect(
        rows.dropFirst().map { $0.stack.children.map(\.text.text) } == [
          ["Unicorn Power", "84.20 USD", "due 2026-05-28", "unpaid"],
          ["Rainbow Water", "31.75 USD", "due 2026-05-30", "unpaid"],
          ["Sparkle Card", "320.00 USD", "due 2026-06-05", "unpaid"],
        ])
      #expect(drawn.configuredParameters.map(\.keyPath).contains("billPayee"))
      let before = try await client.configureView(
        .with {
          $0.context = Self.context
          $0.interaction = .with { $0.intent = search }
        })
      #expect(!before.configured)
    }
  }

  @Test("ConfigureView of an amount whose nanos have ten digits: drawn as their sum, not a trapped process")
  func viewOfAnOutOfRangeAmount() async throws {
    try await domain.run { client, _, _, _ in
      // A client may send any Int32 as nanos; the text used to trap on ten digits (scripts/fuzz).
      let intent = try Self.intent(
        "INSendPaymentIntent",
        SendPaymentIntent.with {
          $0.payee = person("Buttercup")
          $0.currencyAmount = .with {
            $0.currencyCode = "USD"; $0.units = 12; $0.nanos = 1_999_999_999
          }
        })
      let draft = try await client.configureView(
        .with {
          $0.context = Self.context
          $0.interaction = .with {
            $0.intent = intent; $0.intentHandlingStatus = .ready
          }
        })
      let texts = draft.view.root.stack.children.map { $0.text.text.isEmpty ? $0.row.value : $0.text.text }
      #expect(texts.contains("13.999999999 USD"))
    }
  }

  @Test("ConfigureView: the payment-transaction view claims payee, amount and note; the accounts list after a search")
  func views() async throws {
    try await domain.run { client, _, _, _ in
      let intent = try Self.intent(
        "INSendPaymentIntent",
        SendPaymentIntent.with {
          $0.payee = person("Buttercup"); $0.currencyAmount = usd(85); $0.note = "rainbow polish"
        })
      let draft = try await client.configureView(
        .with {
          $0.context = Self.context
          $0.interaction = .with {
            $0.intent = intent; $0.intentHandlingStatus = .ready
          }
        })
      #expect(draft.configured)
      #expect(draft.view.kind == "payment-transaction")
      #expect(draft.configuredParameters.map(\.keyPath) == ["payee", "currencyAmount", "note"])
      let texts = draft.view.root.stack.children.map { $0.text.text.isEmpty ? $0.row.value : $0.text.text }
      #expect(texts == ["Buttercup", "85.00 USD", "rainbow polish", "draft"])

      let search = try Self.intent("INSearchForAccountsIntent", SearchForAccountsIntent())
      let handled = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context; $0.intent = search
        })
      let list = try await client.configureView(
        .with {
          $0.context = Self.context
          $0.interaction = handled.interaction
        })
      #expect(list.view.kind == "accounts-list")
      #expect(list.view.root.stack.children.count == 4)
      #expect(
        list.view.root.stack.children.first?.stack.children.map(\.text.text) == [
          "Euro Pocket", "Unicorn Bank Europe", "300.00 EUR",
        ])
      // Before the search ran there is nothing to list: the host draws the asked parameters itself.
      let before = try await client.configureView(
        .with {
          $0.context = Self.context
          $0.interaction = .with { $0.intent = search }
          $0.parameters = []
        })
      #expect(!before.configured)

      // TransferMoney has no view of its own: the host draws each parameter from its display value.
      let transfer = try Self.intent(
        "INTransferMoneyIntent",
        TransferMoneyIntent.with {
          $0.fromAccount = account(nickname: "Rainbow Savings")
          $0.toAccount = account(type: .checking, organization: "Unicorn Bank")
          $0.transactionAmount = amount(10)
          $0.transactionScheduledDate = day(2026, 5, 23)
        })
      let fallback = try await client.configureView(
        .with {
          $0.context = Self.context
          $0.interaction = .with {
            $0.intent = transfer; $0.intentHandlingStatus = .ready
          }
          $0.parameters = [
            "fromAccount", "toAccount", "transactionAmount", "transactionScheduledDate", "transactionNote",
          ]
          .map { keyPath in
            .with {
              $0.parameterClass = "INTransferMoneyIntent"; $0.keyPath = keyPath
            }
          }
        })
      #expect(!fallback.configured)
      #expect(
        fallback.displayValues.map { "\($0.label): \($0.displayText)" } == [
          "From: Rainbow Savings", "To: Unicorn Bank checking", "Amount: 10.00 USD", "Date: from 2026-05-23", "Note: ",
        ])
    }
  }
}
