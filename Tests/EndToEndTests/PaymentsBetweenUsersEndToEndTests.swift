import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import IntentsKitTesting
import PaymentsProtos
import SwiftProtobuf
import Testing

/// Two users who exist only because they signed up through UnicornPay's app API, every call
/// through the gateway's public port over real sockets: one pays the other, who is credited on the
/// same ledger; a request reaches the payer, who pays one and declines another; an intruder can
/// neither see nor answer them; bad input gets a clear status; a domain that is down answers
/// UNAVAILABLE through the gateway.
@Suite("UnicornPay: users sign up and pay each other, through the gateway", .serialized)
struct PaymentsBetweenUsersEndToEndTests {
  typealias App = Intentmesh_Payments_V1_UnicornPayApp.Client<HTTP2ClientTransport.Posix>
  typealias Extension = Intentmesh_V1_IntentsExtension.Client<HTTP2ClientTransport.Posix>

  func withClients<T: Sendable>(port: Int, _ body: (App, Extension) async throws -> T) async throws -> T {
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
    return try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) { client in
      try await body(App(wrapping: client), Extension(wrapping: client))
    }
  }

  static func money(_ units: Int64, _ currency: String = "USD") -> Intentmesh_V1_CurrencyAmount {
    .with {
      $0.currencyCode = currency; $0.units = units
    }
  }

  static func intent<M: SwiftProtobuf.Message>(_ intentClass: String, _ message: M) throws -> Intentmesh_V1_Intent {
    try .with {
      $0.intentClass = intentClass; $0.identifier = UUID().uuidString; $0.payload = try .init(message: message)
    }
  }

  static func pay(_ payee: String, _ units: Int64, note: String = "") throws -> Intentmesh_V1_Intent {
    try intent(
      "INSendPaymentIntent",
      Intentmesh_Payments_V1_SendPaymentIntent.with {
        $0.payee = .with { $0.displayName = payee }; $0.currencyAmount = money(units); $0.note = note
      })
  }

  static func ask(_ payer: String, _ units: Int64, note: String) throws -> Intentmesh_V1_Intent {
    try intent(
      "INRequestPaymentIntent",
      Intentmesh_Payments_V1_RequestPaymentIntent.with {
        $0.payer = .with { $0.displayName = payer }; $0.currencyAmount = money(units); $0.note = note
      })
  }

  /// The typed response's code name of `intent` handled as `user` (resolve, confirm, handle).
  static func handle(_ intent: Intentmesh_V1_Intent, as user: String, on client: Extension) async throws -> String {
    try await MessagingDeliveryTests.handle(intent, as: user, on: client).response.codeName
  }

  @Test("Ava pays Ben, Ben asks Ava twice: paid and declined; Eve sees and answers nothing; money is conserved")
  func payAndRequest() async throws {
    let file = TemporaryDatabaseFile("pay-users")
    defer { file.remove() }
    let payments = try await ServiceProcess("payments-service", arguments: ["--port", "0", "--database", file.path])
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(payments.port)"])
    try await withClients(port: gateway.port) { app, client in
      let ava = TestIdentity.metadata(for: "ava")
      let ben = TestIdentity.metadata(for: "ben")
      let eve = TestIdentity.metadata(for: "eve")
      await MessagingDeliveryTests.expectStatus(.notFound) { _ = try await app.getProfile(.init(), metadata: ava) }
      let signedUp = try await app.signUp(
        .with {
          $0.displayName = "Ava Stardust"; $0.handle = "Ava@UnicornPay.example"
        }, metadata: ava)
      #expect(signedUp.profile.handle == "ava@unicornpay.example" && signedUp.profile.homeCurrency == "USD")
      #expect(signedUp.account.isDefault && signedUp.account.balance.units == 0)
      _ = try await app.signUp(
        .with {
          $0.displayName = "Ben Moonbeam"; $0.handle = "ben@unicornpay.example"
        }, metadata: ben)
      let avaBalance = signedUp.account.identifier

      // Bad input, each with its status.
      for currency in ["usd", "CHF", "XYZ"] {
        await MessagingDeliveryTests.expectStatus(.invalidArgument) {
          _ = try await app.signUp(
            .with {
              $0.displayName = "Eve"; $0.handle = "eve@unicornpay.example"; $0.homeCurrency = currency
            }, metadata: eve)
        }
      }
      await MessagingDeliveryTests.expectStatus(.alreadyExists) {
        _ = try await app.signUp(
          .with {
            $0.displayName = "Thief"; $0.handle = "BEN@unicornpay.example"
          }, metadata: eve)
      }
      for amount in [Self.money(-5), Self.money(0), Self.money(10, "EUR"), Self.money(9_000)] {
        await MessagingDeliveryTests.expectStatus(.invalidArgument) {
          _ = try await app.addFunds(
            .with {
              $0.accountIdentifier = avaBalance; $0.amount = amount
            }, metadata: ava)
        }
      }
      // Nobody adds money to another user's account.
      await MessagingDeliveryTests.expectStatus(.notFound) {
        _ = try await app.addFunds(
          .with {
            $0.accountIdentifier = avaBalance; $0.amount = Self.money(100)
          }, metadata: ben)
      }
      await MessagingDeliveryTests.expectStatus(.invalidArgument) {
        _ = try await app.openAccount(
          .with {
            $0.nickname = "Card"; $0.type = .credit; $0.currency = "USD"
          }, metadata: ava)
      }
      await MessagingDeliveryTests.expectStatus(.unauthenticated) {
        _ = try await app.listPayments(.init(), metadata: ["authorization": "Bearer x"])
      }

      let funded = try await app.addFunds(
        .with {
          $0.accountIdentifier = avaBalance; $0.amount = Self.money(100)
        }, metadata: ava)
      #expect(funded.account.balance.units == 100)
      // A payee who is no user yet cannot be paid; once Ben is one (he is), he can.
      let added = try await app.addPayee(
        .with {
          $0.payee = .with {
            $0.displayName = "Ben Moonbeam"; $0.handle = "ben@unicornpay.example"
          }
        }, metadata: ava)
      #expect(added.payee.isUser && added.payee.givenName == "Ben")
      await MessagingDeliveryTests.expectStatus(.alreadyExists) {
        _ = try await app.addPayee(
          .with {
            $0.payee = .with {
              $0.displayName = "Ben again"; $0.handle = "BEN@unicornpay.example"
            }
          }, metadata: ava)
      }
      #expect(try await Self.handle(try Self.pay("Ben", 25, note: "stardust"), as: "ava", on: client) == "success")

      let bensAccounts = try await app.listAccounts(.init(), metadata: ben).accounts
      #expect(bensAccounts.map(\.balance.units) == [25])
      let bensPayments = try await app.listPayments(.init(), metadata: ben).payments
      #expect(bensPayments.map(\.direction) == [.received])
      #expect(bensPayments.first?.counterpartyHandle == "ava@unicornpay.example")
      #expect(bensPayments.first?.counterpartyName == "Ava Stardust")
      #expect(bensPayments.first?.note == "stardust")
      let avasPayments = try await app.listPayments(.init(), metadata: ava).payments
      #expect(avasPayments.map(\.direction) == [.sent])
      #expect(avasPayments.first?.counterpartyName == "Ben Moonbeam")

      // Ben asks Ava twice; Ava sees both among her requests (and bills); Eve sees none.
      _ = try await app.addPayee(
        .with {
          $0.payee = .with {
            $0.givenName = "Ava"; $0.familyName = "Stardust"; $0.handle = "ava@unicornpay.example"
          }
        }, metadata: ben)
      #expect(try await Self.handle(try Self.ask("Ava", 10, note: "moon cake"), as: "ben", on: client) == "success")
      #expect(try await Self.handle(try Self.ask("Ava", 40, note: "comet tour"), as: "ben", on: client) == "success")
      let requests = try await app.listRequests(.with { $0.pendingOnly = true }, metadata: ava).requests
      #expect(requests.map(\.note).sorted() == ["comet tour", "moon cake"])
      #expect(requests.allSatisfy { $0.requesterHandle == "ben@unicornpay.example" && $0.status == .unpaid })
      #expect(try await app.listRequests(.init(), metadata: eve).requests.isEmpty)
      let cake = try #require(requests.first { $0.note == "moon cake" })
      let tour = try #require(requests.first { $0.note == "comet tour" })
      // Eve cannot answer Ava's requests; Ben cannot answer his own.
      for intruder in [eve, ben] {
        await MessagingDeliveryTests.expectStatus(.notFound) {
          _ = try await app.payRequest(.with { $0.identifier = cake.identifier }, metadata: intruder)
        }
        await MessagingDeliveryTests.expectStatus(.notFound) {
          _ = try await app.declineRequest(.with { $0.identifier = tour.identifier }, metadata: intruder)
        }
      }
      await MessagingDeliveryTests.expectStatus(.notFound) {
        _ = try await app.payRequest(.with { $0.identifier = "" }, metadata: ava)
      }

      let paid = try await app.payRequest(.with { $0.identifier = cake.identifier }, metadata: ava)
      #expect(paid.request.status == .completed)
      #expect(paid.account.balance.units == 100 - 25 - 10)
      await MessagingDeliveryTests.expectStatus(.failedPrecondition) {
        _ = try await app.payRequest(.with { $0.identifier = cake.identifier }, metadata: ava)
      }
      let declined = try await app.declineRequest(.with { $0.identifier = tour.identifier }, metadata: ava)
      #expect(declined.request.status == .canceled)
      await MessagingDeliveryTests.expectStatus(.failedPrecondition) {
        _ = try await app.payRequest(.with { $0.identifier = tour.identifier }, metadata: ava)
      }

      // Ben sees one request paid, one declined, and 35.00 in all.
      let bensView = try await app.listPayments(.init(), metadata: ben).payments
      let asked = bensView.filter { $0.direction == .requested }
      #expect(Set(asked.map { "\($0.note):\($0.status.rawValue)" }) == ["moon cake:2", "comet tour:3"])
      #expect(bensView.filter { $0.direction == .received }.map(\.amount.units).sorted() == [10, 25])
      #expect(try await app.listAccounts(.init(), metadata: ben).accounts.map(\.balance.units) == [35])
      #expect(try await app.listPayments(.init(), metadata: eve).payments.isEmpty)
    }
    #expect(try await gateway.stop() == 0)
    #expect(try await payments.stop() == 0)
  }

  @Test("an app call through the gateway to a domain that is down answers UNAVAILABLE, not UNIMPLEMENTED")
  func domainDown() async throws {
    let file = TemporaryDatabaseFile("pay-down")
    defer { file.remove() }
    let payments = try await ServiceProcess("payments-service", arguments: ["--port", "0", "--database", file.path])
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(payments.port)"])
    try await withClients(port: gateway.port) { app, _ in
      let diana = TestIdentity.metadata(for: "diana")
      #expect(try await app.getProfile(.init(), metadata: diana).profile.displayName == "Diana Huang")
      #expect(try await payments.stop() == 0)
      var code: RPCError.Code?
      for _ in 0..<100 {
        do {
          _ = try await app.getProfile(.init(), metadata: diana)
        } catch let error as RPCError {
          code = error.code
          if error.code == .unavailable { break }
        }
        try await Task.sleep(for: .milliseconds(100))
      }
      #expect(code == .unavailable)
    }
    #expect(try await gateway.stop() == 0)
  }
}
