internal import GRPCCore
internal import IntentMeshProtos
internal import ServiceKit

/// Turns a request into a call to the owning domain: route by class and app name, refuse locked
/// intents, carry the deadline and metadata.
struct GatewayRouter: Sendable {
  let directory: DomainDirectory
  let deadline: CallDeadline

  init(directory: DomainDirectory, deadline: CallDeadline) {
    self.directory = directory
    self.deadline = deadline
  }

  /// The call for `intent`, made `elapsed` after the request arrived with `metadata`.
  func call(
    for intent: Intentmesh_V1_Intent, context: Intentmesh_V1_RequestContext, metadata: Metadata, elapsed: Duration
  ) throws -> DomainCall {
    let route = try directory.table.route(for: intent, context: context)
    return try call(route: route, metadata: metadata, elapsed: elapsed)
  }

  func call(route: RoutingTable.Route, metadata: Metadata, elapsed: Duration) throws -> DomainCall {
    let endpoint = directory.choose(among: route.replicas)
    guard let connection = directory.connection(for: endpoint) else {
      throw GatewayError.domainUnavailable(
        appName: route.appName, endpoint: "\(endpoint)", detail: "not configured")
    }
    let directory = directory
    var outcome: (@Sendable (Bool) -> Void)?
    if route.replicas.count > 1 {
      outcome = { @Sendable failed in directory.report(endpoint, failed: failed) }
    }
    return DomainCall(
      route: route, connection: connection, metadata: ForwardedMetadata.forward(metadata),
      timeout: deadline.timeout(for: metadata, elapsed: elapsed), outcome: outcome)
  }
}
