import Foundation
import GRPCCore
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

/// Isolation as a matrix: Diana (A) has messages, accounts, notes and a ride; Scott (B) holds a
/// valid token of his own. For every intent the Swift domains declare and both live-update streams, B resolves,
/// confirms, handles (also under A's intent identifiers) and follows, aiming at A's identifiers and
/// names. No answer B gets, success or error, carries A's data that B did not send himself, and A's
/// own view of her data is the same afterwards.
@Suite("Identity: isolation matrix over every intent of the Swift domains", .serialized)
struct IsolationMatrixTests {
  typealias Client = InProcessDomain.Client
  static let owner = "diana"
  static let intruder = "scott"

  static func manifest(_ folder: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Services/\(folder)/Manifest")
  }

  static func context(_ user: String) -> Intentmesh_V1_RequestContext {
    .with {
      $0.userID = user; $0.timeZone = "America/Los_Angeles"
    }
  }

  static func intent(_ intentClass: String, _ payload: some SwiftProtobuf.Message, identifier: String = "")
    -> Intentmesh_V1_Intent
  {
    .with {
      $0.intentClass = intentClass
      $0.identifier = identifier
      $0.payload = try! Google_Protobuf_Any(message: payload)
    }
  }

  static func speakable(_ phrase: String) -> Intentmesh_V1_SpeakableString { .with { $0.spokenPhrase = phrase } }
  static func person(_ name: String) -> Intentmesh_V1_Person { .with { $0.displayName = name } }
  static func usd(_ units: Int64) -> Intentmesh_V1_CurrencyAmount {
    .with {
      $0.currencyCode = "USD"; $0.units = units
    }
  }

  /// What B says and gets, kept for the leak check.
  final class Transcript: Sendable {
    private let state = Mutex<[(request: [UInt8], answer: [UInt8], label: String)]>([])
    func record(_ label: String, request: some SwiftProtobuf.Message, answer: [UInt8]) {
      let bytes: [UInt8] = (try? request.serializedBytes()) ?? []
      state.withLock { $0.append((bytes, answer, label)) }
    }
    var entries: [(request: [UInt8], answer: [UInt8], label: String)] { state.withLock { $0 } }
  }

  /// Every call B can make about `intent`, each answer recorded.
  static func probe(
    _ client: Client, _ intent: Intentmesh_V1_Intent, stream: Bool, ownerIdentifiers: [String], into log: Transcript
  ) async {
    func answer(_ body: () async throws -> [UInt8]) async -> [UInt8] {
      do { return try await body() } catch let error as RPCError {
        return Array("\(error.code) \(error.message)".utf8)
      } catch { return Array("\(error)".utf8) }
    }
    let context = context(intruder)
    let resolve = Intentmesh_V1_ResolveRequest.with {
      $0.context = context; $0.intent = intent
    }
    log.record(
      "\(intent.intentClass) Resolve", request: resolve,
      answer: await answer { try await client.resolve(resolve).serializedBytes() })
    let confirm = Intentmesh_V1_ConfirmRequest.with {
      $0.context = context; $0.intent = intent
    }
    log.record(
      "\(intent.intentClass) Confirm", request: confirm,
      answer: await answer { try await client.confirm(confirm).serializedBytes() })
    // Handle under B's own identifier, then under each of A's (a replay of A's answer would leak it).
    for identifier in ["b-\(UUID().uuidString)"] + ownerIdentifiers {
      var handle = Intentmesh_V1_HandleRequest.with {
        $0.context = context; $0.intent = intent
      }
      handle.intent.identifier = identifier
      log.record(
        "\(intent.intentClass) Handle \(identifier)", request: handle,
        answer: await answer { try await client.confirmAndHandle(handle).serializedBytes() })
    }
    guard stream else { return }
    let follow = Intentmesh_V1_StartSendingUpdatesRequest.with {
      $0.context = context; $0.intent = intent
    }
    let updates = await answer {
      var options = CallOptions.defaults
      options.timeout = .milliseconds(700)
      let received = Mutex<[UInt8]>([])
      do {
        try await client.startSendingUpdates(follow, options: options) { response in
          for try await update in response.messages {
            let bytes: [UInt8] = try update.serializedBytes()
            if received.withLock({
              $0 += bytes; return $0.count > 1 << 20
            }) {
              break
            }
          }
        }
      } catch let error as RPCError where error.code == .deadlineExceeded {
        // The stream ran until the deadline: what it sent is what counts.
      }
      return received.withLock { $0 }
    }
    log.record("\(intent.intentClass) StartSendingUpdates", request: follow, answer: updates)
  }

  /// A's data B must never see, unless B's own request carried it.
  static let ownerSecrets = [
    // UnicornChat: A's messages, account and groups.
    "The rainbow polish is ready!", "Meet at the forest at noon?", "Are you ready for your presentation?",
    "unicorn hands", "A-SECRET-MESSAGE", "Diana Huang", "diana@unicorn.chat", "Rainbow Riders",
    // UnicornPay: A's accounts, payment and profile.
    "CH-1001-4821", "SV-1001-7730", "CC-5500-0042", "EU-2002-1180", "Rainbow Checking", "Rainbow Savings",
    "Sparkle Card", "Euro Pocket", "A-SECRET-PAYMENT", "diana@unicornpay.example",
    // UnicornNote: A's notes and lists.
    "Glitter-powered hoverboard", "Gate: 1234", "Unicorn ideas", "Secret stable codes", "Groceries", "Carrots",
    "A-SECRET-NOTE",
  ]

  @Test("B's valid token never reads, changes or follows A's data: every intent, 2 live-update streams, 0 leaks")
  func matrix() async throws {
    let log = Transcript()
    var covered: Set<String> = []
    var declared: Set<String> = []
    var rideID = ""
    var ownerViewBefore: [String: [UInt8]] = [:]
    var ownerViewAfter: [String: [UInt8]] = [:]

    // UnicornChat.
    try await InProcessDomain(definition: UnicornChat.definition(), manifestDirectory: Self.manifest("Messaging")).run {
      client, _, _, _ in
      declared.formUnion(try await client.describe(.init()).manifest.intents.map(\.intentClass))
      let sent = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context(Self.owner)
          $0.intent = Self.intent(
            "INSendMessageIntent",
            Intentmesh_Messaging_V1_SendMessageIntent.with {
              $0.recipients = [Self.person("Buttercup")]; $0.content = "A-SECRET-MESSAGE"
            }, identifier: "a-send-1")
        })
      #expect(sent.response.codeName == "success")
      let ownerIdentifiers = ["a-send-1"]
      let view = {
        try await client.confirmAndHandle(
          .with {
            $0.context = Self.context(Self.owner)
            $0.intent = Self.intent(
              "INSearchForMessagesIntent", Intentmesh_Messaging_V1_SearchForMessagesIntent(),
              identifier: UUID().uuidString)
          }
        ).response.payload.value
      }
      ownerViewBefore["messages"] = Array(try await view())
      let ids = ["seed-1", "seed-2", "seed-3", "seed-4"]
      let probes: [(String, any SwiftProtobuf.Message, Bool)] = [
        (
          "INSendMessageIntent",
          Intentmesh_Messaging_V1_SendMessageIntent.with {
            $0.recipients = [Self.person("Buttercup")]; $0.content = "hello"; $0.conversationIdentifier = "seed-2"
          }, false
        ),
        ("INSearchForMessagesIntent", Intentmesh_Messaging_V1_SearchForMessagesIntent(), false),
        (
          "INSearchForMessagesIntent", Intentmesh_Messaging_V1_SearchForMessagesIntent.with { $0.identifiers = ids },
          false
        ),
        (
          "INSetMessageAttributeIntent",
          Intentmesh_Messaging_V1_SetMessageAttributeIntent.with {
            $0.identifiers = ids; $0.attribute = .read
          }, false
        ),
        (
          "INGetVisualCodeIntent", Intentmesh_Messaging_V1_GetVisualCodeIntent.with { $0.visualCodeType = .contact },
          false
        ),
      ]
      for (intentClass, payload, stream) in probes {
        covered.insert(intentClass)
        await Self.probe(
          client, Self.intent(intentClass, payload), stream: stream, ownerIdentifiers: ownerIdentifiers, into: log)
      }
      ownerViewAfter["messages"] = Array(try await view())
    }

    // UnicornPay.
    try await InProcessDomain(definition: UnicornPay.definition(), manifestDirectory: Self.manifest("Payments")).run {
      client, _, _, _ in
      declared.formUnion(try await client.describe(.init()).manifest.intents.map(\.intentClass))
      let paid = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context(Self.owner)
          $0.intent = Self.intent(
            "INSendPaymentIntent",
            Intentmesh_Payments_V1_SendPaymentIntent.with {
              $0.payee = Self.person("Buttercup"); $0.currencyAmount = Self.usd(5); $0.note = "A-SECRET-PAYMENT"
            }, identifier: "a-pay-1")
        })
      #expect(paid.response.codeName == "success")
      let view = {
        try await client.confirmAndHandle(
          .with {
            $0.context = Self.context(Self.owner)
            $0.intent = Self.intent(
              "INSearchForAccountsIntent", Intentmesh_Payments_V1_SearchForAccountsIntent(),
              identifier: UUID().uuidString)
          }
        ).response.payload.value
      }
      ownerViewBefore["accounts"] = Array(try await view())
      let ownersAccount = Intentmesh_Payments_V1_PaymentAccount.with {
        $0.nickname = Self.speakable("Rainbow Checking"); $0.accountNumber = "CH-1001-4821"
      }
      let probes: [(String, any SwiftProtobuf.Message)] = [
        (
          "INSendPaymentIntent",
          Intentmesh_Payments_V1_SendPaymentIntent.with {
            $0.payee = Self.person("Diana Huang"); $0.currencyAmount = Self.usd(1)
          }
        ),
        (
          "INRequestPaymentIntent",
          Intentmesh_Payments_V1_RequestPaymentIntent.with {
            $0.payer = Self.person("Buttercup"); $0.currencyAmount = Self.usd(1)
          }
        ),
        ("INSearchForAccountsIntent", Intentmesh_Payments_V1_SearchForAccountsIntent()),
        (
          "INSearchForAccountsIntent",
          Intentmesh_Payments_V1_SearchForAccountsIntent.with {
            $0.accountNickname = Self.speakable("Rainbow Checking")
          }
        ),
        (
          "INTransferMoneyIntent",
          Intentmesh_Payments_V1_TransferMoneyIntent.with {
            $0.fromAccount = ownersAccount
            $0.toAccount = .with { $0.nickname = Self.speakable("Everyday") }
            $0.transactionAmount = .with { $0.amount = Self.usd(100) }
          }
        ),
        ("INSearchForBillsIntent", Intentmesh_Payments_V1_SearchForBillsIntent()),
        (
          "INPayBillIntent",
          Intentmesh_Payments_V1_PayBillIntent.with {
            $0.fromAccount = ownersAccount; $0.transactionAmount = .with { $0.amountType = .amountDue }
          }
        ),
      ]
      for (intentClass, payload) in probes {
        covered.insert(intentClass)
        await Self.probe(
          client, Self.intent(intentClass, payload), stream: false, ownerIdentifiers: ["a-pay-1"], into: log)
      }
      ownerViewAfter["accounts"] = Array(try await view())
    }

    // UnicornNote.
    try await InProcessDomain(definition: UnicornNote.definition(), manifestDirectory: Self.manifest("ListsAndNotes"))
      .run { client, _, _, _ in
        declared.formUnion(try await client.describe(.init()).manifest.intents.map(\.intentClass))
        let created = try await client.confirmAndHandle(
          .with {
            $0.context = Self.context(Self.owner)
            $0.intent = Self.intent(
              "INCreateNoteIntent",
              Intentmesh_Notebook_V1_CreateNoteIntent.with {
                $0.title = Self.speakable("Plans"); $0.content = .with { $0.text = "A-SECRET-NOTE" }
              }, identifier: "a-note-1")
          })
        #expect(created.response.codeName == "success")
        let view = {
          try await client.confirmAndHandle(
            .with {
              $0.context = Self.context(Self.owner)
              $0.intent = Self.intent(
                "INSearchForNotebookItemsIntent", Intentmesh_Notebook_V1_SearchForNotebookItemsIntent(),
                identifier: UUID().uuidString)
            }
          ).response.payload.value
        }
        ownerViewBefore["notes"] = Array(try await view())
        let ownersNote = Intentmesh_Notebook_V1_Note.with {
          $0.identifier = "note-ideas"; $0.title = Self.speakable("Unicorn ideas")
        }
        let probes: [(String, any SwiftProtobuf.Message, Bool)] = [
          (
            "INCreateNoteIntent", Intentmesh_Notebook_V1_CreateNoteIntent.with { $0.title = Self.speakable("Mine") },
            false
          ),
          (
            "INAppendToNoteIntent",
            Intentmesh_Notebook_V1_AppendToNoteIntent.with {
              $0.targetNote = ownersNote; $0.content = .with { $0.text = "scribble" }
            }, false
          ),
          ("INSearchForNotebookItemsIntent", Intentmesh_Notebook_V1_SearchForNotebookItemsIntent(), true),
          (
            "INSearchForNotebookItemsIntent",
            Intentmesh_Notebook_V1_SearchForNotebookItemsIntent.with { $0.notebookItemIdentifier = "note-secret" },
            false
          ),
          (
            "INCreateTaskListIntent",
            Intentmesh_Notebook_V1_CreateTaskListIntent.with { $0.title = Self.speakable("Mine") }, false
          ),
          (
            "INAddTasksIntent",
            Intentmesh_Notebook_V1_AddTasksIntent.with {
              $0.targetTaskList = .with { $0.identifier = "list-groceries" }; $0.taskTitles = [Self.speakable("Salt")]
            }, false
          ),
          (
            "INSetTaskAttributeIntent",
            Intentmesh_Notebook_V1_SetTaskAttributeIntent.with {
              $0.targetTask = .with { $0.identifier = "task-carrots" }; $0.status = .completed
            }, false
          ),
        ]
        for (intentClass, payload, stream) in probes {
          covered.insert(intentClass)
          await Self.probe(
            client, Self.intent(intentClass, payload), stream: stream, ownerIdentifiers: ["a-note-1"], into: log)
        }
        ownerViewAfter["notes"] = Array(try await view())
      }

    // UnicornRides.
    try await InProcessDomain(definition: UnicornRides.definition(), manifestDirectory: Self.manifest("RideBooking"))
      .run {
        client, _, _, _ in
        declared.formUnion(try await client.describe(.init()).manifest.intents.map(\.intentClass))
        let route = Intentmesh_Ridebooking_V1_RequestRideIntent.with {
          $0.pickupLocation = .with { $0.name = "300 Post Street" }
          $0.dropOffLocation = .with { $0.name = "the forest" }
          $0.rideOptionName = Self.speakable("bicorn")
        }
        let booked = try await client.confirmAndHandle(
          .with {
            $0.context = Self.context(Self.owner)
            $0.intent = Self.intent("INRequestRideIntent", route, identifier: "a-ride-1")
          })
        rideID = try Intentmesh_Ridebooking_V1_RequestRideIntentResponse(unpackingAny: booked.response.payload)
          .rideStatus.rideIdentifier
        #expect(!rideID.isEmpty)
        let probes: [(String, any SwiftProtobuf.Message, Bool)] = [
          (
            "INListRideOptionsIntent",
            Intentmesh_Ridebooking_V1_ListRideOptionsIntent.with {
              $0.pickupLocation = route.pickupLocation; $0.dropOffLocation = route.dropOffLocation
            }, false
          ),
          ("INGetRideStatusIntent", Intentmesh_Ridebooking_V1_GetRideStatusIntent(), true),
          ("INCancelRideIntent", Intentmesh_Ridebooking_V1_CancelRideIntent.with { $0.rideIdentifier = rideID }, false),
          (
            "INSendRideFeedbackIntent",
            Intentmesh_Ridebooking_V1_SendRideFeedbackIntent.with {
              $0.rideIdentifier = rideID; $0.rating = 1
            }, false
          ),
          // B's own ride last: afterwards B has a ride, and still sees only it.
          ("INRequestRideIntent", route, false),
          ("INGetRideStatusIntent", Intentmesh_Ridebooking_V1_GetRideStatusIntent(), true),
        ]
        for (intentClass, payload, stream) in probes {
          covered.insert(intentClass)
          await Self.probe(
            client, Self.intent(intentClass, payload), stream: stream, ownerIdentifiers: ["a-ride-1"], into: log)
        }
        // A's ride is still hers, and still booked.
        let status = try await client.confirmAndHandle(
          .with {
            $0.context = Self.context(Self.owner)
            $0.intent = Self.intent(
              "INGetRideStatusIntent", Intentmesh_Ridebooking_V1_GetRideStatusIntent(), identifier: "a-status")
          })
        let ride = try Intentmesh_Ridebooking_V1_GetRideStatusIntentResponse(unpackingAny: status.response.payload)
          .rideStatus
        #expect(ride.rideIdentifier == rideID)
        #expect(ride.completionStatus.outcome != .canceledByUser)
      }

    // The intents come from the domains' manifests; a new intent fails here until it has its probe.
    #expect(!declared.isEmpty)
    #expect(covered == declared, "intents without a probe: \(declared.subtracting(covered).sorted())")
    let secrets = Self.ownerSecrets + [rideID]
    var leaks: [String] = []
    for entry in log.entries {
      for secret in secrets where !secret.isEmpty {
        let bytes = Array(secret.utf8)
        if entry.answer.contains(bytes), !entry.request.contains(bytes) {
          leaks.append("\(entry.label): \"\(secret)\"")
        }
      }
    }
    #expect(leaks.isEmpty, "\(leaks.count) leaks: \(leaks.joined(separator: "; "))")
    #expect(log.entries.count > 100)
    for (name, before) in ownerViewBefore {
      #expect(ownerViewAfter[name] == before, "A's \(name) changed while B was trying")
    }
  }
}

extension Array where Element == UInt8 {
  func contains(_ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, needle.count <= count else { return false }
    for start in 0...(count - needle.count) where self[start] == needle[0] {
      if self[start..<(start + needle.count)].elementsEqual(needle) { return true }
    }
    return false
  }
}
