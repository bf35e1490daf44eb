internal import ProtoJSON
internal import ServiceKit

/// Tokens for the web app's "Sign in as" on a development machine: `POST /dev/token` with
/// `{"user": "diana"}` answers `{"token": "<JWT>"}` signed with the local identity `intentmesh up`
/// keeps (`--dev-tokens-from <data>/identity`). Whoever gets one can act as any user, so the gateway
/// turns it on only when it listens on loopback, answers only a page of this machine, and only one
/// that holds the secret of this run (`DevTokenSecret`: in the web app's address `intentmesh up`
/// prints, and in a file only the person who started it can read). A deployment never has it.
struct DevTokens: Sendable {
  let issuer: LocalIssuer
  let secret: String

  /// Whether `request` may have a token: from this machine's page, with this run's secret.
  func admits(_ request: WebRequest) -> Bool {
    Self.isFromThisMachine(request) && DevTokenSecret.matches(request.header(DevTokenSecret.header), secret)
  }

  /// How long a token lasts.
  static let lifetime: Duration = .seconds(12 * 3600)

  /// A user name the page may ask a token for: 1 to 64 letters, digits, `.`, `_` or `-`.
  static func isValidUser(_ user: String) -> Bool {
    (1...64).contains(user.count)
      && user.unicodeScalars.allSatisfy {
        $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0)
      }
  }

  /// Whether a request comes from a page on this machine: addressed to a loopback name (a page of
  /// another site whose name resolves to 127.0.0.1 — DNS rebinding — sends its own name as Host),
  /// from a loopback origin or none, and not through a proxy.
  static func isFromThisMachine(_ request: WebRequest) -> Bool {
    func isLoopback(_ authority: String) -> Bool {
      let host: Substring
      if authority.hasPrefix("[") {
        host = authority.dropFirst().prefix { $0 != "]" }
      } else {
        host = authority.prefix { $0 != ":" }
      }
      return LoopbackHost.names.contains(String(host))
    }
    guard let host = request.header("host"), isLoopback(host) else { return false }
    if let origin = request.header("origin") {
      let parts = origin.split(separator: "/", omittingEmptySubsequences: true)
      guard parts.count == 2, parts[0] == "http:" || parts[0] == "https:", isLoopback(String(parts[1])) else {
        return false
      }
    }
    return !["forwarded", "x-forwarded-for", "x-forwarded-host", "via"].contains { request.header($0) != nil }
  }

  /// The answer to a request body: the token, or why not.
  func answer(_ body: [UInt8]) -> (status: Int, json: JSONValue) {
    guard let request = try? JSONReader.read(body), let user = request["user"]?.stringValue, Self.isValidUser(user)
    else {
      return (
        400,
        .object([
          ("code", .string("invalid_argument")),
          ("message", .string(#"send {"user": NAME}: 1 to 64 letters, digits, '.', '_' or '-'"#)),
        ])
      )
    }
    do {
      let token = try issuer.token(subject: user, ttl: Self.lifetime)
      return (200, .object([("user", .string(user)), ("token", .string(token))]))
    } catch {
      return (500, .object([("code", .string("internal")), ("message", .string("no token: \(error)"))]))
    }
  }
}
