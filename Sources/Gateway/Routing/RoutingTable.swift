internal import SwiftProtobuf
internal import IntentMeshProtos
internal import ServiceKit
internal import IntentMeshCore

/// Intent class (and app name) → the domain that handles it, built from the domains' manifests.
struct RoutingTable: Sendable {
  /// One intent class served by one app, on one or more replicas of its domain service.
  struct Route: Sendable {
    /// Where the app's domain service runs: replicas share one store, any of them can answer.
    var replicas: [DomainEndpoint]
    var appName: String
    var alternativeAppNames: [String]
    var declaration: Intentmesh_V1_IntentDeclaration

    var intentClass: String { declaration.intentClass }

    /// The first replica: where a route with a single endpoint goes.
    var endpoint: DomainEndpoint { replicas[0] }

    init(
      endpoint: DomainEndpoint, appName: String, alternativeAppNames: [String],
      declaration: Intentmesh_V1_IntentDeclaration
    ) {
      self.replicas = [endpoint]
      self.appName = appName
      self.alternativeAppNames = alternativeAppNames
      self.declaration = declaration
    }

    /// Whether the user called the app by `name`: its name or an alternative, ignoring case and spaces.
    func isNamed(_ name: String) -> Bool {
      ([appName] + alternativeAppNames).contains { NameMatching.matches(name, $0) }
    }

    /// Whether the intent may not run on a locked device (declared, or a payments intent).
    var restrictedWhileLocked: Bool {
      SiriPolicy.restrictedWhileLocked(intentClass, declaredRestricted: declaration.restrictedWhileLocked)
    }
  }

  let routes: [String: [Route]]
  /// A domain's app-side gRPC service (e.g. "intentmesh.payments.v1.UnicornPayApp") → the
  /// replicas serving it, from the manifests' `app_services`.
  let appServices: [String: [DomainEndpoint]]
  /// Each app's manifest (its first replica's), in the domain list's order.
  let manifests: [Intentmesh_V1_ExtensionManifest]

  init(manifests: [(DomainEndpoint, Intentmesh_V1_ExtensionManifest)]) {
    var routes: [String: [Route]] = [:]
    var appServices: [String: [DomainEndpoint]] = [:]
    var apps: [Intentmesh_V1_ExtensionManifest] = []
    for (endpoint, manifest) in manifests {
      if !apps.contains(where: { $0.appName == manifest.appName }) { apps.append(manifest) }
      for service in manifest.appServices
      where !Self.isReserved(service) && !(appServices[service]?.contains(endpoint) ?? false) {
        appServices[service, default: []].append(endpoint)
      }
      let alternatives = manifest.alternativeAppNames.map(\.name)
      for declaration in manifest.intents {
        var candidates = routes[declaration.intentClass, default: []]
        // The same app on another endpoint is a replica, not a second app.
        if let index = candidates.firstIndex(where: { $0.appName == manifest.appName }) {
          candidates[index].replicas.append(endpoint)
        } else {
          candidates.append(
            Route(
              endpoint: endpoint, appName: manifest.appName, alternativeAppNames: alternatives,
              declaration: declaration))
        }
        routes[declaration.intentClass] = candidates
      }
    }
    self.routes = routes
    self.appServices = appServices
    self.manifests = apps
  }

  /// Whether `service` is one the gateway answers itself (its own API, the Intents extension it
  /// routes, health, reflection): a domain declaring it as an app service is not relayed it.
  static func isReserved(_ service: String) -> Bool {
    ["intentmesh.gateway.v1.Gateway", "intentmesh.v1.IntentsExtension", "grpc.health.v1.Health"].contains(service)
      || service.hasPrefix("grpc.reflection.")
  }

  /// The replicas serving the app-side service a call's `:path` ("/package.Service/Method")
  /// names; nil when no domain declares it.
  func appServiceReplicas(path: String) -> [DomainEndpoint]? {
    guard path.hasPrefix("/"), let slash = path.dropFirst().firstIndex(of: "/") else { return nil }
    return appServices[String(path[path.index(after: path.startIndex)..<slash])]
  }

  /// The route of `intentClass`, narrowed to the app the user named (if any).
  func route(intentClass: String, appName: String) throws -> Route {
    guard let candidates = routes[intentClass], !candidates.isEmpty else {
      throw GatewayError.noRoute(intentClass: intentClass)
    }
    let named = appName.isEmpty ? candidates : candidates.filter { $0.isNamed(appName) }
    guard !named.isEmpty else {
      throw GatewayError.noSuchApp(appName: appName, intentClass: intentClass, apps: candidates.map(\.appName))
    }
    guard named.count == 1 else {
      throw GatewayError.ambiguous(intentClass: intentClass, apps: named.map(\.appName))
    }
    return named[0]
  }

  /// The route for `intent` from a client in `context`, refusing locked-device intents before any
  /// domain is called.
  func route(for intent: Intentmesh_V1_Intent, context: Intentmesh_V1_RequestContext) throws -> Route {
    let route = try route(intentClass: intent.intentClass, appName: intent.appName)
    if context.deviceLocked, route.restrictedWhileLocked {
      throw GatewayError.restrictedWhileLocked(intentClass: intent.intentClass)
    }
    return route
  }

  /// Every route, sorted by class and app.
  var allRoutes: [Route] {
    routes.values.flatMap { $0 }.sorted { ($0.intentClass, $0.appName) < ($1.intentClass, $1.appName) }
  }
}
