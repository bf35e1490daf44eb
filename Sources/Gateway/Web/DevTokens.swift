internal import ServiceKit

/// Tokens for the web app's "Sign in as" on a development machine: `POST /dev/token` with
/// `{"user": "diana"}` answers `{"token": "<JWT>"}` signed with the local identity `intentmesh up`
/// keeps (`--dev-tokens-from <data>/identity`). Anyone who reaches the port can then act as any
/// user, so the gateway turns it on only when it listens on loopback; a deployment never has it.
struct DevTokens: Sendable {
  let issuer: LocalIssuer

  /// How long a token lasts.
  static let lifetime: Duration = .seconds(12 * 3600)

  /// A user name the page may ask a token for: 1 to 64 letters, digits, `.`, `_` or `-`.
  static func isValidUser(_ user: String) -> Bool {
    (1...64).contains(user.count)
      && user.unicodeScalars.allSatisfy {
        $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0)
      }
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
