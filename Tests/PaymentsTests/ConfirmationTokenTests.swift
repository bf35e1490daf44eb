import Crypto
import Foundation
import GRPCCore
import IntentMeshProtos
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
@testable import Payments
import PaymentsProtos
import SQLKit
import ServiceKit
import SwiftProtobuf
import Testing

/// The user's yes cannot be skipped: Handle of a payment needs Confirm's token for exactly that
/// payment, by exactly that user, and nothing moves without it.
@Suite("Confirmation tokens: Handle needs Confirm's token for exactly this intent")
struct ConfirmationTokenTests {
  let domain = InProcessDomain(
    definition: UnicornPay.definition(identifiers: SequentialIdentifierGenerator(prefix: "confirm")),
    manifestDirectory: PaymentsFixture.manifest, now: { PaymentsFixture.now })
  typealias Service = PaymentsServiceTests

  static func handle(
    _ client: InProcessDomain.Client, _ intent: Intentmesh_V1_Intent, token: String, user: String = "diana"
  ) async -> RPCError? {
    do {
      _ = try await client.handle(
        .with {
          $0.context = .with { $0.userID = user }
          $0.intent = intent
          $0.confirmationToken = token
        })
      return nil
    } catch let error as RPCError {
      return error
    } catch {
      return RPCError(code: .unknown, message: "\(error)")
    }
  }

  static func token(_ client: InProcessDomain.Client, _ intent: Intentmesh_V1_Intent, user: String = "diana")
    async throws -> String
  {
    try await client.confirm(
      .with {
        $0.context = .with { $0.userID = user }
        $0.intent = intent
      }
    ).confirmationToken
  }

  static func balance(_ store: any IntentStore) async throws -> Int64? {
    try await store.read { try await AccountRepository.account("diana-checking", in: $0)?.balanceMinor }
  }

  @Test(
    "without a token, with a token of another amount, identifier or user, or a forged one: FAILED_PRECONDITION and no money moves"
  )
  func refused() async throws {
    try await domain.run { client, _, _, store in
      let payment = try Service.payment(85, identifier: "pay-1")
      let yes = try await Self.token(client, payment)
      #expect(!yes.isEmpty)
      let otherAmount = try Service.payment(8_500, identifier: "pay-1")
      let otherIdentifier = try Service.payment(85, identifier: "pay-2")
      var forged = Array(yes)
      forged[forged.count - 2] = forged[forged.count - 2] == "A" ? "B" : "A"
      let cases: [(String, Intentmesh_V1_Intent, String, String, String)] = [
        ("no token", payment, "", "diana", "call Confirm"),
        ("another amount", otherAmount, yes, "diana", "currencyAmount changed since the user's yes"),
        ("another identifier", otherIdentifier, yes, "diana", "another intent"),
        ("Diana's yes sent by Ezra", payment, yes, "ezra", "another user"),
        ("forged", payment, String(forged), "diana", "another user"),
        ("not a token", payment, "yes please", "diana", "not one this service issued"),
      ]
      for (name, intent, token, user, words) in cases {
        let error = await Self.handle(client, intent, token: token, user: user)
        #expect(error?.code == .failedPrecondition, "\(name): \(String(describing: error))")
        #expect(error?.message.contains("confirm first") == true, "\(name): \(String(describing: error?.message))")
        #expect(error?.message.contains(words) == true, "\(name): \(String(describing: error?.message))")
      }
      #expect(try await Self.balance(store) == 125_000)
      // The right token moves the money, once; a retry replays without one (no effect either way).
      #expect(await Self.handle(client, payment, token: yes) == nil)
      #expect(try await Self.balance(store) == 125_000 - 8_500)
      let retry = try await client.handle(
        .with {
          $0.context = .with { $0.userID = "diana" }
          $0.intent = payment
        })
      #expect(retry.replayed)
      #expect(try await Self.balance(store) == 125_000 - 8_500)
      // A changed amount needs a new yes, and gets one.
      let more = try Service.payment(100, identifier: "pay-3")
      #expect(await Self.handle(client, more, token: yes)?.code == .failedPrecondition)
      #expect(await Self.handle(client, more, token: try await Self.token(client, more)) == nil)
      #expect(try await Self.balance(store) == 125_000 - 8_500 - 10_000)
    }
  }

  @Test("tokens expire, and the key lives in the store: another replica on the same store accepts them")
  func expiryAndSharedKey() async throws {
    let database = TemporaryDatabase.path(named: "confirmation-key")
    defer { TemporaryDatabase.remove(database) }
    let store = try await SQLiteStore.open(path: database, logger: .init(label: "test"))
    try await SchemaMigrator.migrate(store, SchemaMigrator.runtime)
    let first = try await store.write { try await ConfirmationKey.loadOrCreate(in: $0) }
    let second = try await store.write { try await ConfirmationKey.loadOrCreate(in: $0) }
    try await store.close()
    let binding = ConfirmationTokens.Binding(
      userID: "diana", intentClass: "INSendPaymentIntent", identifier: "pay-1", payloadTypeURL: "t",
      agreed: Self.agreed(["payee": [1], "currencyAmount": [2]], whole: [3]))
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let token = ConfirmationTokens(key: first).issue(for: binding, now: now)
    #expect(ConfirmationTokens(key: second).problem(with: token, for: binding, now: now) == nil)
    #expect(
      ConfirmationTokens(key: second).problem(
        with: token, for: binding, now: now.addingTimeInterval(ConfirmationTokens.lifetime + 1)) == .expired)
    var changed = binding
    changed.agreed = Self.agreed(["payee": [1], "currencyAmount": [9]], whole: [3])
    #expect(
      ConfirmationTokens(key: second).problem(with: token, for: changed, now: now)
        == .changed(parameters: ["currencyAmount"]))
  }

  /// Agreed values of parameters in the order given (by name), and the whole intent's bytes.
  static func agreed(_ parts: KeyValuePairs<String, [UInt8]>, whole: [UInt8]) -> AgreedValues {
    AgreedValues(parameters: parts.map { AgreedValues.Part(name: $0.key, bytes: $0.value) }, whole: whole)
  }

  @Test(
    "each agreed part is checked on its own: changed parameters are named, undeclared fields alone say so, and another user, class, identifier, declaration or key is another intent"
  )
  func parts() throws {
    let tokens = ConfirmationTokens(key: SymmetricKey(size: .bits256))
    let binding = ConfirmationTokens.Binding(
      userID: "diana", intentClass: "INTransferMoneyIntent", identifier: "t-1", payloadTypeURL: "t",
      agreed: Self.agreed(["fromAccount": [1], "toAccount": [2], "transactionAmount": [3]], whole: [4]))
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let token = tokens.issue(for: binding, now: now)
    func problem(_ change: (inout ConfirmationTokens.Binding) -> Void) -> ConfirmationTokens.Problem? {
      var changed = binding
      change(&changed)
      return tokens.problem(with: token, for: changed, now: now)
    }
    #expect(problem { _ in } == nil)
    #expect(
      problem {
        $0.agreed = Self.agreed(["fromAccount": [9], "toAccount": [2], "transactionAmount": [9]], whole: [9])
      } == .changed(parameters: ["fromAccount", "transactionAmount"]))
    #expect(
      problem { $0.agreed = Self.agreed(["fromAccount": [1], "toAccount": [2], "transactionAmount": [3]], whole: [5]) }
        == .changed(parameters: []))
    // Bytes that move between parts are not the same parts.
    #expect(
      problem {
        $0.agreed = Self.agreed(["fromAccount": [], "toAccount": [1, 2], "transactionAmount": [3]], whole: [4])
      }
        == .changed(parameters: ["fromAccount", "toAccount"]))
    #expect(problem { $0.userID = "ezra" } == .otherIntent)
    #expect(problem { $0.intentClass = "INSendPaymentIntent" } == .otherIntent)
    #expect(problem { $0.identifier = "t-2" } == .otherIntent)
    #expect(problem { $0.payloadTypeURL = "u" } == .otherIntent)
    #expect(
      problem { $0.agreed = Self.agreed(["fromAccount": [1], "toAccount": [2]], whole: [4]) } == .otherIntent)
    let elsewhere = ConfirmationTokens(key: SymmetricKey(size: .bits256))
    #expect(elsewhere.problem(with: token, for: binding, now: now) == .otherIntent)
    // Truncated, padded, of another version, or empty.
    var bytes = try #require(Base64URL.decoded(token))
    #expect(tokens.problem(with: Base64URL.encoded(bytes.dropLast()), for: binding, now: now) == .notIssued)
    #expect(tokens.problem(with: Base64URL.encoded(bytes + [0]), for: binding, now: now) == .notIssued)
    bytes[0] = 1
    #expect(tokens.problem(with: Base64URL.encoded(bytes), for: binding, now: now) == .notIssued)
    #expect(tokens.problem(with: "", for: binding, now: now) == .missing)
  }

  @Test(
    "a token is its version, its expiry, a tag per agreed part and HMAC-SHA256 over the length-prefixed binding (replicas of other versions agree)"
  )
  func tokenBytes() throws {
    let key = SymmetricKey(data: Data((0..<32).map { UInt8($0) }))
    let binding = ConfirmationTokens.Binding(
      userID: "diana", intentClass: "INSendPaymentIntent", identifier: "pay-7",
      payloadTypeURL: "type.googleapis.com/intentmesh.payments.v1.SendPaymentIntent",
      agreed: Self.agreed(["payee": [8, 1], "currencyAmount": [0xff]], whole: [8, 1, 0xff]))
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let bytes = try #require(Base64URL.decoded(ConfirmationTokens(key: key).issue(for: binding, now: now)))
    let expires = UInt64((now.timeIntervalSince1970 + ConfirmationTokens.lifetime) * 1000)
    func lengthPrefixed(_ field: Data) -> Data {
      Data(withUnsafeBytes(of: UInt32(field.count).bigEndian) { Array($0) }) + field
    }
    var tags = Data()
    for (name, part) in [("payee", Data([8, 1])), ("currencyAmount", Data([0xff])), ("", Data([8, 1, 0xff]))] {
      var message = Data("intentmesh-confirmation-v2-part".utf8)
      for field in [Data("diana".utf8), Data("pay-7".utf8), Data(name.utf8), part] { message += lengthPrefixed(field) }
      tags += Data(HMAC<SHA256>.authenticationCode(for: message, using: key)).prefix(16)
    }
    var message = Data("intentmesh-confirmation-v2".utf8)
    for field in [
      Data("diana".utf8), Data("INSendPaymentIntent".utf8), Data("pay-7".utf8),
      Data("type.googleapis.com/intentmesh.payments.v1.SendPaymentIntent".utf8),
    ] {
      message += lengthPrefixed(field)
    }
    message.append(contentsOf: withUnsafeBytes(of: expires.bigEndian) { Array($0) })
    message += lengthPrefixed(tags)
    var expected = Data([ConfirmationTokens.version])
    expected.append(contentsOf: withUnsafeBytes(of: expires.bigEndian) { Array($0) })
    expected.append(contentsOf: [0, 3])
    expected += tags
    expected.append(contentsOf: Array(HMAC<SHA256>.authenticationCode(for: message, using: key)))
    #expect(Data(bytes) == expected)
  }
}
