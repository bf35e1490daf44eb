internal import IntentsKit
internal import Synchronization

/// The known places of one handler — one request — read from the store once: a Resolve resolves
/// pickup and drop-off with one handler, and both look in the same places.
final class PlaceBook: Sendable {
  private let store: any IntentStore
  private let area: ServiceArea
  private let loaded = Mutex<PlaceResolver?>(nil)

  init(store: any IntentStore, area: ServiceArea) {
    self.store = store
    self.area = area
  }

  /// The places, read on first use.
  func resolver() async throws -> PlaceResolver {
    if let resolver = loaded.withLock({ $0 }) { return resolver }
    let resolver = PlaceResolver(area: area, places: try await store.read { try await PlaceRepository.places(in: $0) })
    loaded.withLock { $0 = resolver }
    return resolver
  }
}
