internal import IntentsKit
internal import Logging

/// Opens the store a location names.
enum StoreOpener {
  /// Opens `location`; a PostgreSQL store keeps its tables in `defaultSchema` unless the URL names one.
  static func open(_ location: StoreLocation, defaultSchema: String, logger: Logger) async throws
    -> any IntentStore
  {
    switch location {
    case .sqlite(let path): return try await SQLiteStore.open(path: path, logger: logger)
    case .postgres(let postgres):
      return try await PostgresStore.open(postgres, defaultSchema: defaultSchema, logger: logger)
    }
  }

  /// The schema a domain's tables live in by default: its service name without "-service",
  /// e.g. "payments" for payments-service.
  static func defaultSchema(forService serviceName: String) -> String {
    var name = serviceName.lowercased()
    if name.hasSuffix("-service") { name.removeLast("-service".count) }
    let cleaned = String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    return StoreLocation.isIdentifier(cleaned) ? cleaned : "intentmesh"
  }
}
