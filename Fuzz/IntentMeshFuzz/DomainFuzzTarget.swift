import Dispatch
import Foundation
import GRPCCore
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
@testable import ListsAndNotes
@testable import Messaging
@testable import Payments
@testable import RideBooking
import SwiftProtobuf

/// Every domain's payload decoding and Resolve (and Confirm, and ConfigureView) of the decoded
/// intent, each domain served in process over a fresh store (as the domain tests serve it) for the
/// whole run.
///
/// Input: [domain][intent][flags][payload bytes]: the payload goes as the `Any` of the intent
/// class the domain declares (flags bit 0: a wrong type URL instead; bit 1: Confirm as well; bit 2:
/// ConfigureView of the intent as well, its view drawn — bit 3: as handled rather than ready). Any
/// status is an answer except INTERNAL: a domain that answers INTERNAL met an input it did not
/// expect, which is a finding.
enum DomainFuzzTarget {
  struct Served: Sendable {
    var client: InProcessDomain.Client
    var intents: [Intentmesh_V1_IntentDeclaration]
  }

  /// @unchecked Sendable: `bytes` is immutable and `done` is a DispatchSemaphore, which is
  /// thread-safe; the fuzzer's thread waits on it while the serving task signals it.
  final class Job: @unchecked Sendable {
    let bytes: [UInt8]
    let done = DispatchSemaphore(value: 0)
    init(bytes: [UInt8]) { self.bytes = bytes }
  }

  nonisolated(unsafe) static var jobs: AsyncStream<Job>.Continuation?
  static let ready = DispatchSemaphore(value: 0)

  static var repository: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  }

  static func prepare() {
    let (stream, continuation) = AsyncStream.makeStream(of: Job.self)
    jobs = continuation
    let root = repository.appendingPathComponent("Services")
    let domains = [
      InProcessDomain(
        definition: UnicornChat.definition(), manifestDirectory: root.appendingPathComponent("Messaging/Manifest")),
      InProcessDomain(
        definition: UnicornPay.definition(), manifestDirectory: root.appendingPathComponent("Payments/Manifest")),
      InProcessDomain(
        definition: UnicornRides.definition(), manifestDirectory: root.appendingPathComponent("RideBooking/Manifest")),
      InProcessDomain(
        definition: UnicornNote.definition(), manifestDirectory: root.appendingPathComponent("ListsAndNotes/Manifest")),
    ]
    Task.detached {
      do {
        try await serve(domains[...], served: []) { served in
          ready.signal()
          for await job in stream {
            await perform(job.bytes, on: served)
            job.done.signal()
          }
        }
      } catch {
        fatalError("the domains did not start: \(error)")
      }
    }
    ready.wait()
  }

  /// Serves `domains` one inside the other, then runs `body` with them all.
  static func serve(
    _ domains: ArraySlice<InProcessDomain>, served: [Served], _ body: ([Served]) async -> Void
  ) async throws {
    guard let next = domains.first else { return await body(served) }
    try await next.run { client, _, _, _ in
      let manifest = try await client.describe(Intentmesh_V1_DescribeRequest()).manifest
      try await serve(domains.dropFirst(), served: served + [Served(client: client, intents: manifest.intents)], body)
    }
  }

  static func run(_ bytes: [UInt8]) {
    guard bytes.count >= 3, let jobs else { return }
    let job = Job(bytes: bytes)
    jobs.yield(job)
    job.done.wait()
  }

  static func perform(_ bytes: [UInt8], on served: [Served]) async {
    let domain = served[Int(bytes[0]) % served.count]
    let declaration = domain.intents[Int(bytes[1]) % domain.intents.count]
    let flags = bytes[2]
    let intent = Intentmesh_V1_Intent.with {
      $0.intentClass = declaration.intentClass
      $0.identifier = "fuzz"
      $0.payload = Google_Protobuf_Any.with {
        $0.typeURL = "type.googleapis.com/" + (flags & 1 == 0 ? declaration.payloadType : "intentmesh.v1.Intent")
        $0.value = Data(bytes.dropFirst(3))
      }
    }
    let context = Intentmesh_V1_RequestContext.with {
      $0.userID = "diana"
      $0.timeZone = "Europe/Zurich"
    }
    await expectNoInternalError("\(declaration.intentClass) Resolve") {
      _ = try await domain.client.resolve(
        .with {
          $0.context = context
          $0.intent = intent
        })
    }
    if flags & 4 != 0 {
      await expectNoInternalError("\(declaration.intentClass) ConfigureView") {
        _ = try await domain.client.configureView(
          .with {
            $0.context = context
            $0.interaction = .with {
              $0.intent = intent
              $0.intentHandlingStatus = flags & 8 == 0 ? .ready : .success
            }
          })
      }
    }
    guard flags & 2 != 0 else { return }
    await expectNoInternalError("\(declaration.intentClass) Confirm") {
      _ = try await domain.client.confirm(
        .with {
          $0.context = context
          $0.intent = intent
        })
    }
  }

  static func expectNoInternalError(_ call: String, _ body: () async throws -> Void) async {
    do {
      try await body()
    } catch let error as RPCError {
      precondition(error.code != .internalError, "\(call): INTERNAL \(error.message)")
    } catch {
      preconditionFailure("\(call): \(error)")
    }
  }
}
