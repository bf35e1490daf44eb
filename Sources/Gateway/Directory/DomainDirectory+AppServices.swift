/// Where a call to a domain's app-side service (its manifest's `app_services`) goes, decided the
/// same way for the relay's gRPC streams and for the web side's Connect calls.
extension DomainDirectory {
  enum AppServiceRoute: Equatable {
    case domain(DomainEndpoint)
    case unavailable
  }

  /// `.domain` with a serving replica, nil when `path` names no app service (the gateway's server
  /// answers it), `.unavailable` when no replica serves it now.
  func appServiceRoute(path: String) -> AppServiceRoute? {
    guard let replicas = table.appServiceReplicas(path: path), !replicas.isEmpty else { return nil }
    let endpoint = choose(among: replicas)
    return health(of: endpoint) == "SERVING" ? .domain(endpoint) : .unavailable
  }

  /// What a caller is told while no replica serves `path`.
  static func appServiceUnavailable(path: String) -> String {
    "\(path): no domain serving it is reachable now; try again"
  }
}
