import Foundation
import GRPCCore
import GRPCInProcessTransport
import IntentMeshCore
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
@testable import ListsAndNotes
import ListsAndNotesProtos
@testable import Messaging
import MessagingProtos
@testable import Payments
import PaymentsProtos
@testable import RideBooking
import RideBookingProtos
import SwiftProtobuf
import Synchronization
import Testing

/// One user is one string of bytes. A token's `sub` is compared without normalization (RFC 7519),
/// and the stores compare bytes; Swift's `String ==` is canonical equivalence, so "Kate" and
/// "\u{212A}ate" (KELVIN SIGN) are one string to Swift and two users to everything else. For each
/// such pair, A fills every domain — profile, accounts, payees, messages, contacts, vocabulary, a
/// note, a ride — through the app APIs and intents (warming every cached read), and B, holding a
/// valid token of the other spelling, calls the same reads and writes: with A first (caches warm
/// with A's answers) and B first (caches warm with B's). No answer B gets carries A's data, B signs
/// up as a user of its own, and A's view is A's.
@Suite("Identity: canonically equivalent user ids are two users on every path, caches warm or cold", .serialized)
struct CanonicallyEquivalentUsersTests {
  typealias Raw = GRPCClient<InProcessTransport.Client>

  struct Pair: Sendable, CustomTestStringConvertible {
    let name: String
    let owner: String
    let other: String
    var testDescription: String { name }

    static let all = [
      Pair(name: "KELVIN SIGN", owner: "Kate", other: "\u{212A}ate"),
      Pair(name: "ANGSTROM SIGN", owner: "\u{00C5}sa", other: "\u{212B}sa"),
      Pair(name: "NFC and NFD é", owner: "ren\u{00E9}e", other: "rene\u{0301}e"),
    ]
  }

  enum Order: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case ownerFirst = "A first: caches warm with A's answers"
    case otherFirst = "B first: caches warm with B's answers"
    var testDescription: String { rawValue }

    /// A's part and B's in this order; B's again after A's when B went first.
    func run(owner: () async throws -> Void, other: () async -> Void) async throws {
      switch self {
      case .ownerFirst:
        try await owner()
        await other()
      case .otherFirst:
        await other()
        try await owner()
        await other()
      }
    }
  }

  /// What B got, for the leak check, and which of A's strings B sent itself (an answer may echo them).
  final class Answers: Sendable {
    private let state = Mutex<[(label: String, sent: [String], bytes: [UInt8])]>([])
    func record(_ label: String, sent: [String] = [], _ body: () async throws -> [UInt8]) async {
      let bytes: [UInt8]
      do { bytes = try await body() } catch let error as RPCError {
        bytes = Array("\(error.code) \(error.message)".utf8)
      } catch { bytes = Array("\(error)".utf8) }
      state.withLock { $0.append((label, sent, bytes)) }
    }
    /// Each answer that carries one of `secrets` its request did not.
    func leaks(of secrets: [String]) -> [String] {
      state.withLock { entries in
        entries.compactMap { entry in
          let text = String(decoding: entry.bytes, as: UTF8.self)
          let found = secrets.filter { text.contains($0) && !entry.sent.contains($0) }
          return found.isEmpty ? nil : "\(entry.label): \(found)"
        }
      }
    }
  }

  static let secrets = [
    "owner-secret@unicornpay.example", "owner-secret@unicorn.chat", "Secret Stash", "Moonbeam Secret",
    "A-SECRET-MESSAGE", "A-SECRET-NOTE", "Secret Plans", "Owner Rider",
  ]

  static func manifest(_ folder: String) -> URL { IsolationMatrixTests.manifest(folder) }

  static func context(_ user: String) -> Intentmesh_V1_RequestContext { IsolationMatrixTests.context(user) }

  static func intent(
    _ intentClass: String, _ payload: some SwiftProtobuf.Message, identifier: String = UUID().uuidString
  )
    -> Intentmesh_V1_Intent
  {
    .with {
      $0.intentClass = intentClass; $0.identifier = identifier; $0.payload = try! Google_Protobuf_Any(message: payload)
    }
  }

  static func speakable(_ text: String) -> Intentmesh_V1_SpeakableString { .with { $0.spokenPhrase = text } }

  /// Resolve, confirm and handle `intent` as `user`; every answer's bytes.
  static func cycle(_ raw: Raw, _ intent: Intentmesh_V1_Intent, as user: String) async throws -> [UInt8] {
    let client = InProcessDomain.Client(wrapping: raw)
    let resolved = try await client.resolve(
      .with {
        $0.context = context(user); $0.intent = intent
      })
    let handled = try await client.confirmAndHandle(
      .with {
        $0.context = context(user); $0.intent = intent
      })
    return try resolved.serializedBytes() + handled.serializedBytes()
  }

  @Test("two users, not one: no leak, B its own user, A's view A's", arguments: Pair.all, Order.allCases)
  func isolated(pair: Pair, order: Order) async throws {
    // The premise: Swift's String equates them, the bytes do not.
    #expect(pair.owner == pair.other)
    #expect(!UserIdentity.same(pair.owner, pair.other))
    #expect(UserKey(pair.owner) != UserKey(pair.other))
    let answers = Answers()
    try await payments(pair, order, answers)
    try await messaging(pair, order, answers)
    try await notes(pair, order, answers)
    try await rides(pair, order, answers)
    #expect(answers.leaks(of: Self.secrets) == [])
  }

  func payments(_ pair: Pair, _ order: Order, _ answers: Answers) async throws {
    try await InProcessDomain(definition: UnicornPay.definition(), manifestDirectory: Self.manifest("Payments")).serve {
      raw, _, _ in
      let app = Intentmesh_Payments_V1_UnicornPayApp.Client(wrapping: raw)
      let (a, b) = (TestIdentity.metadata(for: pair.owner), TestIdentity.metadata(for: pair.other))
      let accounts = Self.intent(
        "INSearchForAccountsIntent",
        Intentmesh_Payments_V1_SearchForAccountsIntent.with { $0.accountNickname = Self.speakable("Secret Stash") })
      let payMoonbeam = Self.intent(
        "INSendPaymentIntent",
        Intentmesh_Payments_V1_SendPaymentIntent.with {
          $0.payee = .with { $0.displayName = "Moonbeam" }
          $0.currencyAmount = .with {
            $0.currencyCode = "USD"; $0.units = 1
          }
        })
      var stash = ""
      func owner() async throws {
        _ = try await app.signUp(
          .with {
            $0.displayName = "Owner"; $0.handle = "owner-secret@unicornpay.example"
          }, metadata: a)
        stash = try await app.openAccount(
          .with {
            $0.nickname = "Secret Stash"; $0.type = .saving; $0.currency = "USD"
          }, metadata: a
        ).account.identifier
        _ = try await app.addFunds(
          .with {
            $0.accountIdentifier = stash;
            $0.amount = .with {
              $0.currencyCode = "USD"; $0.units = 40
            }
          }, metadata: a)
        _ = try await app.addPayee(
          .with {
            $0.payee = .with {
              $0.displayName = "Moonbeam Secret"; $0.handle = "scott@unicornpay.example"
            }
          }, metadata: a)
        // Every cached read warmed with A's answers: profile, accounts, their resolver, payees.
        let found = try Intentmesh_Payments_V1_SearchForAccountsIntentResponse(
          unpackingAny: try await InProcessDomain.Client(wrapping: raw).confirmAndHandle(
            .with {
              $0.context = Self.context(pair.owner); $0.intent = accounts
            }
          ).response.payload)
        #expect(found.accounts.map(\.nickname.spokenPhrase) == ["Secret Stash"])
        // The payee resolver warmed (Resolve; the payment itself may ask which Moonbeam).
        _ = try? await Self.cycle(raw, payMoonbeam, as: pair.owner)
      }
      func other() async {
        await answers.record("payments GetProfile") { try await app.getProfile(.init(), metadata: b).serializedBytes() }
        await answers.record("payments ListAccounts") {
          try await app.listAccounts(.init(), metadata: b).serializedBytes()
        }
        await answers.record("payments ListPayees") { try await app.listPayees(.init(), metadata: b).serializedBytes() }
        await answers.record("payments ListPayments") {
          try await app.listPayments(.init(), metadata: b).serializedBytes()
        }
        await answers.record("payments AddFunds to A's account") {
          try await app.addFunds(
            .with {
              $0.accountIdentifier = stash;
              $0.amount = .with {
                $0.currencyCode = "USD"; $0.units = 1
              }
            }, metadata: b
          ).serializedBytes()
        }
        await answers.record("payments SearchForAccounts", sent: ["Secret Stash"]) {
          try await Self.cycle(raw, accounts, as: pair.other)
        }
        await answers.record("payments SendPayment to A's payee") {
          try await Self.cycle(raw, payMoonbeam, as: pair.other)
        }
        await answers.record("payments TransferMoney from A's account", sent: ["Secret Stash"]) {
          try await Self.cycle(
            raw,
            Self.intent(
              "INTransferMoneyIntent",
              Intentmesh_Payments_V1_TransferMoneyIntent.with {
                $0.fromAccount = .with { $0.nickname = Self.speakable("Secret Stash") }
                $0.toAccount = .with { $0.nickname = Self.speakable("UnicornPay Balance") }
                $0.transactionAmount = .with {
                  $0.amount = .with {
                    $0.currencyCode = "USD"; $0.units = 5
                  }
                }
              }), as: pair.other)
        }
      }
      try await order.run(owner: owner, other: other)
      // B signs up as a user of its own, not as A (whose profile exists).
      let signedUp = try await app.signUp(
        .with {
          $0.displayName = "Other"; $0.handle = "other-\(order == .ownerFirst ? 1 : 2)@unicornpay.example"
        }, metadata: b)
      #expect(UserIdentity.same(signedUp.profile.userID, pair.other))
      await answers.record("payments ListAccounts after sign-up") {
        try await app.listAccounts(.init(), metadata: b).serializedBytes()
      }
      await answers.record("payments SearchForAccounts after sign-up", sent: ["Secret Stash"]) {
        try await Self.cycle(raw, accounts, as: pair.other)
      }
      // A's view is A's: the stash and its 40.00 untouched.
      let mine = try await app.listAccounts(.init(), metadata: a).accounts
      #expect(mine.map(\.nickname).contains("Secret Stash"))
      #expect(mine.first { $0.identifier == stash }?.balance.units == 40)
      #expect(UserIdentity.same(try await app.getProfile(.init(), metadata: a).profile.userID, pair.owner))
    }
  }

  func messaging(_ pair: Pair, _ order: Order, _ answers: Answers) async throws {
    try await InProcessDomain(definition: UnicornChat.definition(), manifestDirectory: Self.manifest("Messaging"))
      .serve { raw, _, _ in
        let app = Intentmesh_Messaging_V1_UnicornChatApp.Client(wrapping: raw)
        let extensions = InProcessDomain.Client(wrapping: raw)
        let (a, b) = (TestIdentity.metadata(for: pair.owner), TestIdentity.metadata(for: pair.other))
        let toMoonbeam = Self.intent(
          "INSendMessageIntent",
          Intentmesh_Messaging_V1_SendMessageIntent.with {
            $0.recipients = [.with { $0.displayName = "Moonbeam" }]; $0.content = "hello"
          })
        let toBoss = Self.intent(
          "INSendMessageIntent",
          Intentmesh_Messaging_V1_SendMessageIntent.with {
            $0.recipients = [.with { $0.displayName = "Boss" }]; $0.content = "hello"
          })
        let search = Self.intent("INSearchForMessagesIntent", Intentmesh_Messaging_V1_SearchForMessagesIntent())
        func owner() async throws {
          _ = try await app.signUp(
            .with {
              $0.displayName = "Owner"; $0.handle = "owner-secret@unicorn.chat"
            }, metadata: a)
          let contact = try await app.addContact(
            .with {
              $0.contact = .with {
                $0.displayName = "Moonbeam Secret"; $0.handle = "scott@unicorn.chat"
              }
            }, metadata: a
          ).contact
          _ = try await extensions.setUserVocabulary(
            .with {
              $0.context = Self.context(pair.owner)
              $0.vocabularyType = .contactName
              $0.speakables = [
                .with {
                  $0.spokenPhrase = "Boss"; $0.vocabularyIdentifier = contact.identifier
                }
              ]
            })
          let sent = try await extensions.confirmAndHandle(
            .with {
              $0.context = Self.context(pair.owner)
              $0.intent = Self.intent(
                "INSendMessageIntent",
                Intentmesh_Messaging_V1_SendMessageIntent.with {
                  $0.recipients = [.with { $0.displayName = "Boss" }]; $0.content = "A-SECRET-MESSAGE"
                })
            })
          #expect(sent.response.codeName == "success")
          _ = try await Self.cycle(raw, search, as: pair.owner)
          _ = try? await Self.cycle(raw, toMoonbeam, as: pair.owner)
        }
        func other() async {
          await answers.record("messaging GetAccount") {
            try await app.getAccount(.init(), metadata: b).serializedBytes()
          }
          await answers.record("messaging ListContacts") {
            try await app.listContacts(.init(), metadata: b).serializedBytes()
          }
          await answers.record("messaging ListMessages") {
            try await app.listMessages(.init(), metadata: b).serializedBytes()
          }
          await answers.record("messaging SearchForMessages") { try await Self.cycle(raw, search, as: pair.other) }
          await answers.record("messaging SendMessage to A's contact") {
            try await Self.cycle(raw, toMoonbeam, as: pair.other)
          }
          await answers.record("messaging SendMessage to A's vocabulary") {
            try await Self.cycle(raw, toBoss, as: pair.other)
          }
        }
        try await order.run(owner: owner, other: other)
        let signedUp = try await app.signUp(
          .with {
            $0.displayName = "Other"; $0.handle = "other-\(order == .ownerFirst ? 1 : 2)@unicorn.chat"
          }, metadata: b)
        #expect(UserIdentity.same(signedUp.account.userID, pair.other))
        await answers.record("messaging ListContacts after sign-up") {
          try await app.listContacts(.init(), metadata: b).serializedBytes()
        }
        await answers.record("messaging SearchForMessages after sign-up") {
          try await Self.cycle(raw, search, as: pair.other)
        }
        await answers.record("messaging SendMessage to A's vocabulary after sign-up") {
          try await Self.cycle(raw, toBoss, as: pair.other)
        }
        let mine = try await app.listMessages(.init(), metadata: a).messages.map(\.content)
        // A's own two messages (the secret, and the hello to Moonbeam), nothing of B's.
        #expect(Set(mine) == ["A-SECRET-MESSAGE", "hello"], "\(mine)")
      }
  }

  func notes(_ pair: Pair, _ order: Order, _ answers: Answers) async throws {
    try await InProcessDomain(definition: UnicornNote.definition(), manifestDirectory: Self.manifest("ListsAndNotes"))
      .serve { raw, _, _ in
        let app = Intentmesh_Notebook_V1_UnicornNoteApp.Client(wrapping: raw)
        let search = Self.intent(
          "INSearchForNotebookItemsIntent", Intentmesh_Notebook_V1_SearchForNotebookItemsIntent())
        let append = Self.intent(
          "INAppendToNoteIntent",
          Intentmesh_Notebook_V1_AppendToNoteIntent.with {
            $0.targetNote = .with { $0.title = Self.speakable("Secret Plans") }
            $0.content = .with { $0.text = "scribble" }
          })
        func owner() async throws {
          let created = try await InProcessDomain.Client(wrapping: raw).confirmAndHandle(
            .with {
              $0.context = Self.context(pair.owner)
              $0.intent = Self.intent(
                "INCreateNoteIntent",
                Intentmesh_Notebook_V1_CreateNoteIntent.with {
                  $0.title = Self.speakable("Secret Plans"); $0.content = .with { $0.text = "A-SECRET-NOTE" }
                })
            })
          #expect(created.response.codeName == "success")
          _ = try await Self.cycle(raw, search, as: pair.owner)
        }
        func other() async {
          await answers.record("notes SearchForNotebookItems") { try await Self.cycle(raw, search, as: pair.other) }
          await answers.record("notes AppendToNote of A's note", sent: ["Secret Plans"]) {
            try await Self.cycle(raw, append, as: pair.other)
          }
          await answers.record("notes ListNotebook") {
            try await app.listNotebook(.init(), metadata: TestIdentity.metadata(for: pair.other)).serializedBytes()
          }
        }
        try await order.run(owner: owner, other: other)
        let mine = try await app.listNotebook(.init(), metadata: TestIdentity.metadata(for: pair.owner))
        #expect(String(decoding: try mine.serializedBytes() as [UInt8], as: UTF8.self).contains("A-SECRET-NOTE"))
        #expect(!String(decoding: try mine.serializedBytes() as [UInt8], as: UTF8.self).contains("scribble"))
      }
  }

  func rides(_ pair: Pair, _ order: Order, _ answers: Answers) async throws {
    try await InProcessDomain(definition: UnicornRides.definition(), manifestDirectory: Self.manifest("RideBooking"))
      .serve { raw, _, _ in
        let app = Intentmesh_Ridebooking_V1_UnicornRidesApp.Client(wrapping: raw)
        let (a, b) = (TestIdentity.metadata(for: pair.owner), TestIdentity.metadata(for: pair.other))
        let status = Self.intent("INGetRideStatusIntent", Intentmesh_Ridebooking_V1_GetRideStatusIntent())
        var rideID = ""
        func owner() async throws {
          _ = try await app.signUp(
            .with {
              $0.displayName = "Owner Rider";
              $0.paymentMethod = .with {
                $0.type = .applePay; $0.name = "Apple Pay"
              }
            }, metadata: a)
          let booked = try await InProcessDomain.Client(wrapping: raw).confirmAndHandle(
            .with {
              $0.context = Self.context(pair.owner)
              $0.intent = Self.intent(
                "INRequestRideIntent",
                Intentmesh_Ridebooking_V1_RequestRideIntent.with {
                  $0.pickupLocation = .with { $0.name = "300 Post Street" }
                  $0.dropOffLocation = .with { $0.name = "the forest" }
                })
            })
          #expect(booked.response.codeName == "success")
          rideID =
            try Intentmesh_Ridebooking_V1_RequestRideIntentResponse(unpackingAny: booked.response.payload).rideStatus
            .rideIdentifier
          _ = try await Self.cycle(raw, status, as: pair.owner)
        }
        func other() async {
          await answers.record("rides GetRider") { try await app.getRider(.init(), metadata: b).serializedBytes() }
          await answers.record("rides ListRides") { try await app.listRides(.init(), metadata: b).serializedBytes() }
          await answers.record("rides GetRideStatus") { try await Self.cycle(raw, status, as: pair.other) }
          await answers.record("rides CancelRide of A's ride") {
            try await Self.cycle(
              raw,
              Self.intent(
                "INCancelRideIntent", Intentmesh_Ridebooking_V1_CancelRideIntent.with { $0.rideIdentifier = rideID }),
              as: pair.other)
          }
        }
        try await order.run(owner: owner, other: other)
        let signedUp = try await app.signUp(
          .with {
            $0.displayName = "Other Rider";
            $0.paymentMethod = .with {
              $0.type = .applePay; $0.name = "Apple Pay"
            }
          }, metadata: b)
        #expect(UserIdentity.same(signedUp.rider.userID, pair.other))
        await answers.record("rides ListRides after sign-up") {
          try await app.listRides(.init(), metadata: b).serializedBytes()
        }
        let mine = try await app.listRides(.init(), metadata: a).rides
        #expect(mine.map(\.status.rideIdentifier) == [rideID])
        #expect(mine.first?.status.phase != .completed)
      }
  }
}
