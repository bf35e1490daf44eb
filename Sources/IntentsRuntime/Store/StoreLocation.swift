internal import IntentsKit
internal import Foundation

/// Where a domain keeps its state, as one string: a SQLite file path (or `:memory:`), a
/// `sqlite:` URL, or a `postgres://user:password@host:port/database` URL. A PostgreSQL URL may add
/// `?schema=NAME` (each domain's tables live in their own schema; the domain's name by default) and
/// `sslmode=` as libpq takes it — `disable`, `allow` or `prefer` (the default: TLS when the server
/// offers it, which an attacker on the path can strip), `require` (TLS or no connection; the
/// certificate not checked), `verify-ca` (and signed by a trusted CA) or `verify-full` (and naming
/// the host) — with `sslrootcert=PATH`, the PEM file of the CA to trust (the system's CAs without).
package enum StoreLocation: Sendable, Equatable {
  case sqlite(path: String)
  case postgres(PostgresLocation)

  /// A PostgreSQL server, database and schema.
  package struct PostgresLocation: Sendable, Equatable {
    package var host: String
    package var port: Int
    package var username: String
    package var password: String?
    package var database: String?
    /// The schema holding this domain's tables; nil means the domain's default.
    package var schema: String?
    package var tls: TLSMode
  }

  /// How the connection to PostgreSQL is protected (`sslmode`, `sslrootcert`).
  package enum TLSMode: Sendable, Equatable {
    case disable
    /// TLS when the server offers it, else plaintext.
    case prefer
    /// TLS or no connection; any certificate.
    case require
    /// TLS with a certificate signed by the CA in `rootCertificate` (the system's CAs when nil).
    case verifyCA(rootCertificate: String?)
    /// As `verifyCA`, and the certificate names the host connected to.
    case verifyFull(rootCertificate: String?)

    /// Whether a connection without TLS is refused.
    package var isRequired: Bool {
      switch self {
      case .disable, .prefer: false
      case .require, .verifyCA, .verifyFull: true
      }
    }
  }

  /// Reads a location; throws `StoreLocationError` with what is wrong.
  package init(parsing text: String) throws {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty else { throw StoreLocationError("the database is empty: give a file path or a URL") }
    if trimmed.hasPrefix("sqlite:") {
      var path = String(trimmed.dropFirst("sqlite:".count))
      if path.hasPrefix("//") { path = String(path.dropFirst(2)) }
      guard !path.isEmpty else { throw StoreLocationError("\(text): the sqlite URL names no file") }
      self = .sqlite(path: path)
      return
    }
    guard trimmed.hasPrefix("postgres://") || trimmed.hasPrefix("postgresql://") else {
      if let scheme = trimmed.range(of: "://") {
        throw StoreLocationError(
          "\(text): unknown database scheme \(trimmed[..<scheme.lowerBound]) (use a file path, sqlite: or postgres://)"
        )
      }
      self = .sqlite(path: trimmed)
      return
    }
    self = .postgres(try PostgresLocation(url: trimmed))
  }

  /// The location with any password replaced, for logs.
  package var redacted: String {
    switch self {
    case .sqlite(let path): return path
    case .postgres(let location):
      let user = location.password == nil ? location.username : "\(location.username):***"
      let schema = location.schema.map { "?schema=\($0)" } ?? ""
      return "postgres://\(user)@\(location.host):\(location.port)/\(location.database ?? "")\(schema)"
    }
  }
}

extension StoreLocation.PostgresLocation {
  init(url text: String) throws {
    guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
      throw StoreLocationError("\(StoreLocation.redact(text)): not a postgres://user@host/database URL")
    }
    guard let user = components.user, !user.isEmpty else {
      throw StoreLocationError("\(StoreLocation.redact(text)): the URL names no user (postgres://USER@host/database)")
    }
    self.host = host
    self.port = components.port ?? 5432
    self.username = user.removingPercentEncoding ?? user
    self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
    let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
    self.database = path.isEmpty ? nil : path
    self.schema = nil
    var mode = "prefer"
    var rootCertificate: String?
    for item in components.queryItems ?? [] {
      switch (item.name, item.value ?? "") {
      case ("schema", let value):
        guard StoreLocation.isIdentifier(value) else {
          throw StoreLocationError("schema \(value) must be letters, digits and underscores, starting with a letter")
        }
        self.schema = value
      case ("sslmode", let value): mode = value
      case ("sslrootcert", let value):
        guard !value.isEmpty else { throw StoreLocationError("sslrootcert names no file") }
        rootCertificate = value
      case (let name, _):
        throw StoreLocationError("unknown database URL option \(name) (schema, sslmode, sslrootcert)")
      }
    }
    switch mode {
    case "disable": self.tls = .disable
    case "allow", "prefer": self.tls = .prefer
    case "require": self.tls = .require
    case "verify-ca": self.tls = .verifyCA(rootCertificate: rootCertificate)
    case "verify-full": self.tls = .verifyFull(rootCertificate: rootCertificate)
    default:
      throw StoreLocationError(
        "sslmode=\(mode) is not one of disable, allow, prefer, require, verify-ca, verify-full")
    }
    if rootCertificate != nil, !["verify-ca", "verify-full"].contains(mode) {
      throw StoreLocationError("sslrootcert is for sslmode=verify-ca or verify-full, not \(mode)")
    }
  }
}

extension StoreLocation {
  /// Whether `name` can be a schema name without quoting.
  static func isIdentifier(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, name.count <= 63 else { return false }
    let letters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz_")
    let rest = letters.union(CharacterSet(charactersIn: "0123456789"))
    return letters.contains(first) && name.unicodeScalars.allSatisfy { rest.contains($0) }
  }

  static func redact(_ url: String) -> String {
    guard var components = URLComponents(string: url), components.password != nil else { return url }
    components.password = "***"
    return components.string ?? url
  }
}

/// A database location that cannot be used, and why.
package struct StoreLocationError: Error, CustomStringConvertible {
  package let description: String
  package init(_ description: String) { self.description = description }
}
