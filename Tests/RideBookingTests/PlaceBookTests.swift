import Foundation
import IntentsKit
@testable import RideBooking
import SQLKit
import Synchronization
import Testing

@Suite("Known places read once per request")
struct PlaceBookTests {
  /// The fixture's store, counting its read transactions.
  final class CountingStore: IntentStore {
    let base: any IntentStore
    let reads = Mutex(0)

    init(_ base: any IntentStore) { self.base = base }

    func write<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
      try await base.write(body)
    }

    func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
      reads.withLock { $0 += 1 }
      return try await base.read(body)
    }

    func close() async throws {}
  }

  @Test("pickup and drop-off of one request share one read of the places; another request reads them again")
  func oneReadPerRequest() async throws {
    try await RideFixture.with { fixture in
      let store = CountingStore(fixture.store)
      let handler = RequestRideHandler(
        store: store, area: .sanFrancisco, offers: RideOfferMatcher(vocabulary: fixture.vocabulary),
        identifiers: fixture.identifiers)
      let intent = RideFixture.bicornToTheForest
      let pickup = try await handler.resolvePickup(intent: intent, context: fixture.context())
      let dropOff = try await handler.resolveDropOff(intent: intent, context: fixture.context())
      #expect(store.reads.withLock { $0 } == 1)
      guard case .success = pickup, case .success = dropOff else {
        Issue.record("expected both resolved: \(pickup) \(dropOff)")
        return
      }
      let next = RequestRideHandler(
        store: store, area: .sanFrancisco, offers: RideOfferMatcher(vocabulary: fixture.vocabulary),
        identifiers: fixture.identifiers)
      _ = try await next.resolveDropOff(intent: intent, context: fixture.context())
      #expect(store.reads.withLock { $0 } == 2)
    }
  }
}
