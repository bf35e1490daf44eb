package import IntentsKit
internal import IntentMeshProtos
package import Foundation
package import GRPCCore
package import Logging
package import ServiceKit

/// A domain ready to serve: store migrated and seeded, manifest checked, services built. Shared by
/// the executables and by in-process tests, so both run the same assembly.
package struct PreparedDomain: Sendable {
  package let manifest: DomainManifest
  package let registry: IntentRegistry
  package let board: HealthStatusBoard
  let extensionService: IntentsExtensionService
  let healthService: HealthService
  /// The domain's app-side services (`DomainDefinition.appServices`).
  package let appServices: [any RegistrableRPCService]

  /// The gRPC services to register.
  package var services: [any RegistrableRPCService] {
    [IntentsExtensionRegistration(service: extensionService), healthService] + appServices
  }

  package static func prepare(
    definition: DomainDefinition,
    store: any IntentStore,
    manifestDirectory: URL,
    now: @escaping @Sendable () -> Date,
    logger: Logger
  ) async throws -> PreparedDomain {
    try await store.changingSchema {
      try await SchemaMigrator.migrate(store, SchemaMigrator.runtime + definition.migrations)
      try await definition.seed(store)
    }
    let resources = DomainResources(
      store: store, appVocabulary: try AppIntentVocabularyPlist.load(inManifest: manifestDirectory))
    let registry = definition.makeRegistry(resources)
    let manifest = try DomainManifest.load(
      directory: manifestDirectory, registry: registry, vocabularyTypes: definition.vocabularyTypes,
      appServices: definition.appServiceNames, types: try EmbeddedProtoTypes.checkTypes())
    let board = HealthStatusBoard()
    let scope = RequestScope(registry: registry, manifest: manifest, now: now, logger: logger)
    let confirmationKey = try await store.write { try await ConfirmationKey.loadOrCreate(in: $0) }
    return PreparedDomain(
      manifest: manifest, registry: registry, board: board,
      extensionService: IntentsExtensionService(
        scope: scope, store: store, confirmations: ConfirmationTokens(key: confirmationKey)),
      healthService: HealthService(board: board), appServices: definition.appServices(resources))
  }
}
