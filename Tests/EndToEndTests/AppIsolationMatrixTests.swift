import Foundation
import GRPCCore
import GRPCInProcessTransport
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

/// Isolation of the app APIs as a matrix: Diana (A) has an account, contacts, payees, a payment
/// request, a ride, places and reminders, some made through the app API itself; Scott (B) holds a
/// valid token of his own and calls every method of every domain's app service, aiming at A's
/// identifiers, handles and names. No answer B gets, success or error, carries A's data that B did
/// not send himself (in that call or an earlier one); A's own view is the same afterwards; every
/// method of the four services is probed (checked against the generated descriptors).
@Suite("Identity: isolation matrix over every app-service method", .serialized)
struct AppIsolationMatrixTests {
  typealias Raw = GRPCClient<InProcessTransport.Client>
  static let owner = "diana"
  static let intruder = "scott"
  static var a: Metadata { TestIdentity.metadata(for: owner) }
  static var b: Metadata { TestIdentity.metadata(for: intruder) }

  /// What B sent and got, per method.
  final class Transcript: Sendable {
    private let state = Mutex<[(request: [UInt8], answer: [UInt8], method: String)]>([])
    private let methods = Mutex<Set<String>>([])

    /// Calls `body` as one of B's probes of `method` with `request`, keeping its answer or error.
    func probe<Request: SwiftProtobuf.Message, Answer: SwiftProtobuf.Message>(
      _ method: GRPCCore.MethodDescriptor, _ request: Request, _ body: (Request) async throws -> Answer
    ) async {
      let answer: [UInt8]
      do {
        answer = try await body(request).serializedBytes()
      } catch let error as RPCError {
        answer = Array("\(error.code) \(error.message)".utf8)
      } catch {
        answer = Array("\(error)".utf8)
      }
      let bytes: [UInt8] = (try? request.serializedBytes()) ?? []
      state.withLock { $0.append((bytes, answer, method.fullyQualifiedMethod)) }
      _ = methods.withLock { $0.insert(method.fullyQualifiedMethod) }
    }

    var entries: [(request: [UInt8], answer: [UInt8], method: String)] { state.withLock { $0 } }
    var probed: Set<String> { methods.withLock { $0 } }
  }

  static func manifest(_ folder: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Services/\(folder)/Manifest")
  }

  static func usd(_ units: Int64) -> Intentmesh_V1_CurrencyAmount {
    .with {
      $0.currencyCode = "USD"; $0.units = units
    }
  }

  static func intent(_ intentClass: String, _ payload: some SwiftProtobuf.Message, identifier: String)
    -> Intentmesh_V1_Intent
  {
    .with {
      $0.intentClass = intentClass; $0.identifier = identifier; $0.payload = try! Google_Protobuf_Any(message: payload)
    }
  }

  static func context(_ user: String) -> Intentmesh_V1_RequestContext {
    .with {
      $0.userID = user; $0.timeZone = "Europe/Zurich"
    }
  }

  /// Secrets of A's that B must never get unless he sent them, beyond the intents' matrix.
  static let secrets = [
    // UnicornChat: A's mailbox, groups and the contacts only she has.
    "The rainbow polish is ready!", "Meet at the forest at noon?", "unicorn hands", "vineet@unicorn.chat",
    "Vineet Khosla", "diana.ross@unicorn.chat", "A-SECRET-CONTACT",
    // UnicornPay: A's accounts, payees and request.
    "CH-1001-4821", "Rainbow Checking", "Rainbow Savings", "Euro Pocket", "A-SECRET-ACCOUNT", "A-SECRET-PAYEE",
    "secret.payee@unicornpay.example", "A-SECRET-REQUEST", "Unicorn Power",
    // UnicornRides: A's payment method (her ride's id is added when booked).
    "A-SECRET-CARD",
    // UnicornNote: A's notebook, places and reminders.
    "Glitter-powered hoverboard", "Gate: 1234", "Unicorn ideas", "Groceries", "A-SECRET-PLACE", "A-SECRET-REMINDER",
  ]

  @Test("B's valid token never reads or changes A's data through any app-service method: 0 leaks")
  func matrix() async throws {
    let log = Transcript()
    var secrets = Self.secrets
    var ownerBefore: [String: [UInt8]] = [:]
    var ownerAfter: [String: [UInt8]] = [:]

    // UnicornChat.
    try await InProcessDomain(definition: UnicornChat.definition(), manifestDirectory: Self.manifest("Messaging"))
      .serve { raw, _, _ in
        let app = Intentmesh_Messaging_V1_UnicornChatApp.Client(wrapping: raw)
        typealias M = Intentmesh_Messaging_V1_UnicornChatApp.Method
        _ = try await app.addContact(
          .with {
            $0.contact = .with {
              $0.displayName = "A-SECRET-CONTACT"; $0.handle = "secret.contact@unicorn.chat"
            }
          }, metadata: Self.a)
        let view = { try await app.listContacts(.init(), metadata: Self.a).serializedBytes() as [UInt8] }
        ownerBefore["contacts"] = try await view()
        await log.probe(
          M.SignUp.descriptor,
          .with {
            $0.displayName = "D"; $0.handle = "diana@unicorn.chat"
          }
        ) {
          try await app.signUp($0, metadata: Self.b)
        }
        await log.probe(M.GetAccount.descriptor, .init()) { try await app.getAccount($0, metadata: Self.b) }
        await log.probe(
          M.AddContact.descriptor,
          .with {
            $0.contact = .with {
              $0.displayName = "V"; $0.handle = "vineet@unicorn.chat"
            }
          }
        ) { try await app.addContact($0, metadata: Self.b) }
        await log.probe(M.ListContacts.descriptor, .init()) { try await app.listContacts($0, metadata: Self.b) }
        for conversation in ["", "conversation-celestra", "conversation-buttercup"] {
          await log.probe(M.ListMessages.descriptor, .with { $0.conversationIdentifier = conversation }) {
            try await app.listMessages($0, metadata: Self.b)
          }
        }
        await log.probe(
          M.SetBlocked.descriptor,
          .with {
            $0.handle = "diana@unicorn.chat"; $0.blocked = false
          }
        ) {
          try await app.setBlocked($0, metadata: Self.b)
        }
        #expect(log.probed.isSuperset(of: M.descriptors.map(\.fullyQualifiedMethod)))
        ownerAfter["contacts"] = try await view()
      }

    // UnicornPay.
    try await InProcessDomain(definition: UnicornPay.definition(), manifestDirectory: Self.manifest("Payments"))
      .serve { raw, _, _ in
        let app = Intentmesh_Payments_V1_UnicornPayApp.Client(wrapping: raw)
        let extensions = Intentmesh_V1_IntentsExtension.Client(wrapping: raw)
        typealias M = Intentmesh_Payments_V1_UnicornPayApp.Method
        _ = try await app.openAccount(
          .with {
            $0.nickname = "A-SECRET-ACCOUNT"; $0.type = .saving; $0.currency = "USD"
          }, metadata: Self.a)
        _ = try await app.addPayee(
          .with {
            $0.payee = .with {
              $0.displayName = "A-SECRET-PAYEE"; $0.handle = "secret.payee@unicornpay.example"
            }
          }, metadata: Self.a)
        // A asks Buttercup for money: a request bill in Buttercup's book, not B's.
        let asked = try await extensions.confirmAndHandle(
          .with {
            $0.context = Self.context(Self.owner)
            $0.intent = Self.intent(
              "INRequestPaymentIntent",
              Intentmesh_Payments_V1_RequestPaymentIntent.with {
                $0.payer = .with { $0.displayName = "Buttercup" }; $0.currencyAmount = Self.usd(7)
                $0.note = "A-SECRET-REQUEST"
              }, identifier: "a-request")
          })
        #expect(asked.response.codeName == "success")
        let requestBill =
          try await app.listRequests(.init(), metadata: TestIdentity.metadata(for: "buttercup"))
          .requests.first?.identifier ?? ""
        #expect(!requestBill.isEmpty)
        let view = {
          try await app.listAccounts(.init(), metadata: Self.a).serializedBytes()
            + app.listPayments(.init(), metadata: Self.a).serializedBytes() as [UInt8]
        }
        ownerBefore["payments"] = try await view()
        await log.probe(
          M.SignUp.descriptor,
          .with {
            $0.displayName = "D"; $0.handle = "diana@unicornpay.example"
          }
        ) {
          try await app.signUp($0, metadata: Self.b)
        }
        await log.probe(M.GetProfile.descriptor, .init()) { try await app.getProfile($0, metadata: Self.b) }
        await log.probe(
          M.OpenAccount.descriptor,
          .with {
            $0.nickname = "Rainbow Checking"; $0.type = .checking; $0.currency = "USD"
          }
        ) { try await app.openAccount($0, metadata: Self.b) }
        await log.probe(M.ListAccounts.descriptor, .init()) { try await app.listAccounts($0, metadata: Self.b) }
        for account in ["diana-checking", "diana-savings", "system:deposits:USD"] {
          await log.probe(
            M.AddFunds.descriptor,
            .with {
              $0.accountIdentifier = account; $0.amount = Self.usd(5)
            }
          ) { try await app.addFunds($0, metadata: Self.b) }
        }
        await log.probe(
          M.AddPayee.descriptor,
          .with {
            $0.payee = .with {
              $0.displayName = "P"; $0.handle = "secret.payee@unicornpay.example"
            }
          }
        ) { try await app.addPayee($0, metadata: Self.b) }
        await log.probe(M.ListPayees.descriptor, .init()) { try await app.listPayees($0, metadata: Self.b) }
        await log.probe(M.ListPayments.descriptor, .init()) { try await app.listPayments($0, metadata: Self.b) }
        await log.probe(M.ListRequests.descriptor, .init()) { try await app.listRequests($0, metadata: Self.b) }
        for bill in [requestBill, "bill-power"] {
          await log.probe(M.PayRequest.descriptor, .with { $0.identifier = bill }) {
            try await app.payRequest($0, metadata: Self.b)
          }
          await log.probe(M.DeclineRequest.descriptor, .with { $0.identifier = bill }) {
            try await app.declineRequest($0, metadata: Self.b)
          }
        }
        #expect(log.probed.isSuperset(of: M.descriptors.map(\.fullyQualifiedMethod)))
        ownerAfter["payments"] = try await view()
        // Buttercup's request from A is still pending: B's tries changed nothing.
        let still = try await app.listRequests(.init(), metadata: TestIdentity.metadata(for: "buttercup")).requests
        #expect(still.map(\.status) == [.unpaid])
      }

    // UnicornRides.
    try await InProcessDomain(definition: UnicornRides.definition(), manifestDirectory: Self.manifest("RideBooking"))
      .serve { raw, _, _ in
        let app = Intentmesh_Ridebooking_V1_UnicornRidesApp.Client(wrapping: raw)
        let extensions = Intentmesh_V1_IntentsExtension.Client(wrapping: raw)
        typealias M = Intentmesh_Ridebooking_V1_UnicornRidesApp.Method
        _ = try await app.setPaymentMethod(
          .with {
            $0.paymentMethod = .with {
              $0.type = .credit; $0.name = "A-SECRET-CARD"
            }
          }, metadata: Self.a)
        let booked = try await extensions.confirmAndHandle(
          .with {
            $0.context = Self.context(Self.owner)
            $0.intent = Self.intent(
              "INRequestRideIntent",
              Intentmesh_Ridebooking_V1_RequestRideIntent.with {
                $0.pickupLocation = .with { $0.name = "300 Post Street" }
                $0.dropOffLocation = .with { $0.name = "the forest" }
              }, identifier: "a-ride")
          })
        let rideID = try Intentmesh_Ridebooking_V1_RequestRideIntentResponse(unpackingAny: booked.response.payload)
          .rideStatus.rideIdentifier
        #expect(!rideID.isEmpty)
        secrets.append(rideID)
        let view = { try await app.listRides(.init(), metadata: Self.a).serializedBytes() as [UInt8] }
        ownerBefore["rides"] = try await view()
        let card = Intentmesh_V1_PaymentMethod.with {
          $0.type = .debit; $0.name = "B's card"
        }
        await log.probe(M.GetRider.descriptor, .init()) { try await app.getRider($0, metadata: Self.b) }
        await log.probe(M.SetPaymentMethod.descriptor, .with { $0.paymentMethod = card }) {
          try await app.setPaymentMethod($0, metadata: Self.b)
        }
        await log.probe(
          M.SignUp.descriptor,
          .with {
            $0.displayName = "Scott"; $0.paymentMethod = card
          }
        ) {
          try await app.signUp($0, metadata: Self.b)
        }
        await log.probe(M.GetRider.descriptor, .init()) { try await app.getRider($0, metadata: Self.b) }
        await log.probe(M.ListRides.descriptor, .init()) { try await app.listRides($0, metadata: Self.b) }
        await log.probe(M.ListCharges.descriptor, .init()) { try await app.listCharges($0, metadata: Self.b) }
        #expect(log.probed.isSuperset(of: M.descriptors.map(\.fullyQualifiedMethod)))
        ownerAfter["rides"] = try await view()
      }

    // UnicornNote.
    try await InProcessDomain(definition: UnicornNote.definition(), manifestDirectory: Self.manifest("ListsAndNotes"))
      .serve { raw, _, _ in
        let app = Intentmesh_Notebook_V1_UnicornNoteApp.Client(wrapping: raw)
        let extensions = Intentmesh_V1_IntentsExtension.Client(wrapping: raw)
        typealias M = Intentmesh_Notebook_V1_UnicornNoteApp.Method
        let place = Intentmesh_Notebook_V1_Place.with {
          $0.name = "A-SECRET-PLACE"; $0.latitude = 47.3769; $0.longitude = 8.5417
        }
        _ = try await app.setPlace(.with { $0.place = place }, metadata: Self.a)
        let added = try await extensions.confirmAndHandle(
          .with {
            $0.context = Self.context(Self.owner)
            $0.intent = Self.intent(
              "INAddTasksIntent",
              Intentmesh_Notebook_V1_AddTasksIntent.with {
                $0.taskTitles = [.with { $0.spokenPhrase = "A-SECRET-REMINDER" }]
                $0.spatialEventTrigger = .with {
                  $0.placemark = .with { $0.name = "A-SECRET-PLACE" }; $0.event = .arrive
                }
              }, identifier: "a-reminder")
          })
        #expect(added.response.codeName == "success")
        let view = {
          try await app.listPlaces(.init(), metadata: Self.a).serializedBytes()
            + app.listNotebook(.init(), metadata: Self.a).serializedBytes() as [UInt8]
        }
        ownerBefore["notes"] = try await view()
        await log.probe(M.ListPlaces.descriptor, .init()) { try await app.listPlaces($0, metadata: Self.b) }
        await log.probe(M.ListNotebook.descriptor, .init()) { try await app.listNotebook($0, metadata: Self.b) }
        // B stands where A's place is, leaves and comes back: none of A's reminders fire for B.
        for latitude in [47.3769, 47.5, 47.3769] {
          await log.probe(
            M.ReportLocation.descriptor,
            .with {
              $0.latitude = latitude; $0.longitude = 8.5417
            }
          ) { try await app.reportLocation($0, metadata: Self.b) }
        }
        // B names a place like A's: his own, A's is untouched.
        await log.probe(M.SetPlace.descriptor, .with { $0.place = place }) {
          try await app.setPlace($0, metadata: Self.b)
        }
        #expect(log.probed.isSuperset(of: M.descriptors.map(\.fullyQualifiedMethod)))
        ownerAfter["notes"] = try await view()
      }

    // A secret counts as B's own once any of his requests so far carried it (an account he named
    // "Rainbow Checking" himself is his to list).
    var leaks: [String] = []
    var said: [[UInt8]] = []
    for entry in log.entries {
      said.append(entry.request)
      for secret in secrets where !secret.isEmpty {
        let bytes = Array(secret.utf8)
        if entry.answer.contains(bytes), !said.contains(where: { $0.contains(bytes) }) {
          leaks.append("\(entry.method): \"\(secret)\"")
        }
      }
    }
    #expect(leaks.isEmpty, "\(leaks.count) leaks: \(leaks.joined(separator: "; "))")
    let methods = 26  // 6 UnicornChatApp + 11 UnicornPayApp + 5 UnicornRidesApp + 4 UnicornNoteApp
    #expect(log.probed.count == methods)
    for (name, before) in ownerBefore {
      #expect(ownerAfter[name] == before, "A's \(name) changed while B was trying")
    }
  }
}
