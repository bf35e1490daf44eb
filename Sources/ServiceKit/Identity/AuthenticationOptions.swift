package import ArgumentParser

/// The token flags every server shares. A flag wins over its environment variable.
package struct AuthenticationOptions: ParsableArguments {
  @Option(
    help:
      "The JWKS the bearer tokens are checked against: a file, or the identity provider's https jwks_uri (env INTENTMESH_JWKS). Required; `intentmesh up` makes one."
  )
  package var jwks: String?

  @Option(help: "The iss every token must carry (env INTENTMESH_JWT_ISSUER; default intentmesh).")
  var jwtIssuer: String?

  @Option(help: "A value every token's aud must contain (env INTENTMESH_JWT_AUDIENCE; default intentmesh).")
  var jwtAudience: String?

  @Option(help: "Clock skew allowed on exp and nbf, in seconds (env INTENTMESH_JWT_LEEWAY_SECONDS; default 30).")
  var jwtLeewaySeconds: Int?

  @Option(help: "How often the JWKS is fetched again, in seconds (env INTENTMESH_JWKS_REFRESH_SECONDS; default 600).")
  var jwksRefreshSeconds: Int?

  package init() {}

  package func configuration(environment: [String: String]) throws -> AuthenticationConfiguration {
    let lookup = OptionLookup(environment)
    guard let location = lookup.string(jwks, "INTENTMESH_JWKS") else {
      throw ValidationError(
        "no JWKS: every call is checked against one. Pass --jwks FILE|https-URL (env INTENTMESH_JWKS); `intentmesh up` and `intentmesh token` make a local one"
      )
    }
    let source: KeySetSource
    do { source = try KeySetSource(parsing: location) } catch { throw ValidationError("\(error)") }
    let leeway = try lookup.integer(jwtLeewaySeconds, "INTENTMESH_JWT_LEEWAY_SECONDS", "JWT leeway", in: 0...600) ?? 30
    let refresh =
      try lookup.integer(jwksRefreshSeconds, "INTENTMESH_JWKS_REFRESH_SECONDS", "JWKS refresh", in: 1...Int.max) ?? 600
    return AuthenticationConfiguration(
      keySet: source,
      policy: TokenPolicy(
        issuer: lookup.string(jwtIssuer, "INTENTMESH_JWT_ISSUER") ?? "intentmesh",
        audience: lookup.string(jwtAudience, "INTENTMESH_JWT_AUDIENCE") ?? "intentmesh",
        leewaySeconds: Double(leeway)),
      refreshInterval: .seconds(refresh))
  }
}
