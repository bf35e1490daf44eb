package import IntentMeshProtos
package import GRPCCore

/// What a domain library gives the runtime: its handlers, the user vocabulary it reads, its schema
/// and seed data. The runtime does the rest (transport, health, logs, shutdown, exactly-once).
package struct DomainDefinition: Sendable {
  /// The executable's name, e.g. "messaging-service".
  package var serviceName: String
  /// The handlers, built over the opened store and the manifest's app vocabulary.
  package var makeRegistry: @Sendable (DomainResources) -> IntentRegistry
  package var vocabularyTypes: [Intentmesh_V1_VocabularyStringType]
  package var migrations: [SchemaMigration]
  /// Fills an empty store with demo data; must be idempotent.
  package var seed: @Sendable (any IntentStore) async throws -> Void
  /// Work the domain runs on its own clock while it serves (settling scheduled payments, say);
  /// nil when it has none.
  package var maintenance: DomainMaintenance?
  /// The app side's gRPC services (SiriKit's containing app: sign-up, address books, what the
  /// intents produced), served beside the IntentsExtension on the same port and store; their full
  /// names, for server reflection.
  package var appServices: @Sendable (DomainResources) -> [any RegistrableRPCService]
  package var appServiceNames: [String]

  package init(
    serviceName: String,
    vocabularyTypes: [Intentmesh_V1_VocabularyStringType],
    migrations: [SchemaMigration],
    seed: @escaping @Sendable (any IntentStore) async throws -> Void,
    maintenance: DomainMaintenance? = nil,
    appServiceNames: [String] = [],
    appServices: @escaping @Sendable (DomainResources) -> [any RegistrableRPCService] = { _ in [] },
    makeRegistry: @escaping @Sendable (DomainResources) -> IntentRegistry
  ) {
    self.appServiceNames = appServiceNames
    self.appServices = appServices
    self.serviceName = serviceName
    self.vocabularyTypes = vocabularyTypes
    self.migrations = migrations
    self.seed = seed
    self.maintenance = maintenance
    self.makeRegistry = makeRegistry
  }
}
