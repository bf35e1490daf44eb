import ArgumentParser
import Foundation
import ServiceKit

/// Prints a bearer token of the local identity (the key pair `intentmesh up` keeps in its data folder).
struct TokenCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "token",
    abstract: "Print a bearer token for a user, signed by the local identity of `intentmesh up`.",
    discussion: """
      The key pair and the JWKS the services check tokens against live in DATA/identity; they are made \
      the first time. Use the token as `authorization: Bearer <token>`.
      """)

  @Option(help: "The user (the token's sub).")
  var user: String

  @Option(help: "How long the token is valid: 90s, 30m, 1h, 7d.")
  var ttl: String = "1h"

  @Option(help: "The data folder of `intentmesh up`.")
  var data: String = "data"

  @Option(help: "The token's iss.")
  var issuer: String = LocalIssuer.defaultIssuer

  @Option(help: "The token's aud.")
  var audience: String = LocalIssuer.defaultAudience

  func run() throws {
    guard !user.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--user is empty") }
    let lifetime = try Self.duration(ttl)
    let issuer = try LocalIdentity.issuer(data: data)
    print(try issuer.token(subject: user, ttl: lifetime, issuer: self.issuer, audience: audience))
  }

  /// "90s", "30m", "1h", "7d" or plain seconds.
  static func duration(_ text: String) throws -> Duration {
    let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
    let unit = text.last.flatMap { units[$0] }
    guard let number = Int64(unit == nil ? text : String(text.dropLast())), number > 0 else {
      throw ValidationError("--ttl \(text) is not a duration such as 90s, 30m, 1h or 7d")
    }
    let (seconds, overflow) = number.multipliedReportingOverflow(by: unit ?? 1)
    guard !overflow, seconds <= 366 * 86400 else { throw ValidationError("--ttl \(text) is longer than a year") }
    return .seconds(seconds)
  }
}

/// The local identity's folder inside a data folder.
enum LocalIdentity {
  static func directory(data: String) -> URL {
    URL(fileURLWithPath: data).appendingPathComponent("identity")
  }

  static func issuer(data: String) throws -> LocalIssuer {
    try LocalIssuer.loadOrCreate(in: directory(data: data))
  }

  static func jwksPath(data: String) -> String {
    directory(data: data).appendingPathComponent(LocalIssuer.jwksFileName).path
  }
}
