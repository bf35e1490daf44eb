internal import ServiceKit
internal import Tracing

/// A span for each store transaction (`store write`, `store read`, with `db.system.name`), child of
/// the call's; nothing when tracing is off or outside a call (migrations, maintenance).
enum StoreTracing {
  static func span<T>(_ name: String, system: String, _ body: () async throws -> T) async throws -> T {
    guard TraceExport.isEnabled, ServiceContext.current != nil else { return try await body() }
    return try await withSpan(name, ofKind: .client) { span in
      span.attributes["db.system.name"] = system
      return try await body()
    }
  }
}
