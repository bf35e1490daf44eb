import Foundation
import SwiftProtobuf
import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import ProtoJSON
import ServiceKit

/// A connection to the gateway for one command.
enum GatewayClient {
  typealias Transport = HTTP2ClientTransport.Posix

  static func with<T: Sendable>(
    _ address: String, token: String? = nil, tlsCA: String? = nil,
    _ body: (GatewaySession) async throws -> T
  ) async throws -> T {
    let parts = address.split(separator: ":")
    guard parts.count == 2, let port = Int(parts[1]) else {
      throw CLIError("--gateway must be host:port, not \(address)")
    }
    let config = HTTP2ClientTransport.Posix.Config.defaults
    // TLS when given the CA the gateway's certificate chains to; an IP is dialled as an address (no SNI).
    let host = String(parts[0])
    let target: any ResolvableTarget =
      host.allSatisfy { $0.isNumber || $0 == "." } ? .ipv4(address: host, port: port) : .dns(host: host, port: port)
    let transport = try HTTP2ClientTransport.Posix(
      target: target, transportSecurity: tlsCA.map { ClientTLS(trustRoots: $0).transportSecurity } ?? .plaintext,
      config: config)
    let interceptors: [any ClientInterceptor] = token.map { [BearerTokenInterceptor(token: $0)] } ?? []
    return try await withGRPCClient(transport: transport, interceptors: interceptors) { client in
      try await body(GatewaySession(client: client))
    }
  }
}

/// The gateway's clients for one command, and what it learns from the gateway: routes, and the
/// types of an intent's payload (from the gateway's reflection, which describes every domain's).
struct GatewaySession: Sendable {
  let client: GRPCClient<GatewayClient.Transport>

  var gateway: Intentmesh_Gateway_V1_Gateway.Client<GatewayClient.Transport> { .init(wrapping: client) }
  var extensions: Intentmesh_V1_IntentsExtension.Client<GatewayClient.Transport> { .init(wrapping: client) }

  /// The route of `intentClass` (and app), from the gateway's table.
  func route(intentClass: String, app: String) async throws -> Intentmesh_Gateway_V1_Route {
    let routes = try await gateway.listRoutes(.init()).routes.filter { $0.intentClass == intentClass }
    let named =
      app.isEmpty
      ? routes
      : routes.filter {
        ($0.appName.lowercased().filter { !$0.isWhitespace }) == app.lowercased().filter { !$0.isWhitespace }
      }
    guard let route = named.first ?? routes.first else {
      throw CLIError("the gateway knows no domain for \(intentClass); see `intentmesh routes`")
    }
    return route
  }

  /// A codec for the route's payload and the types it holds, from their descriptors: any intent of
  /// any domain, whether or not this `intentmesh` was built with it.
  func codec(for route: Intentmesh_Gateway_V1_Route) async throws -> ProtoJSONCodec {
    // A gateway that has just routed the domain may still be fetching its descriptors: a few tries.
    for attempt in 1...10 {
      let answers = try await ReflectionFetch.files(defining: [route.payloadType], over: client)
      if let files = answers.first, !files.isEmpty {
        return ProtoJSONCodec(schema: ProtoSchema(files: files), acceptsSpokenEnumNames: true)
      }
      if attempt < 10 { try await Task.sleep(for: .milliseconds(300)) }
    }
    throw CLIError("the gateway's reflection does not describe \(route.payloadType) (is \(route.appName) up?)")
  }
}
