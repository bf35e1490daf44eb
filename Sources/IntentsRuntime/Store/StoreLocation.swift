internal import IntentsKit
internal import Foundation

/// Where a domain keeps its state, as one string: a SQLite file path (or `:memory:`), a
/// `sqlite:` URL, or a `postgres://user:password@host:port/database` URL. A PostgreSQL URL may add
/// `?schema=NAME` (each domain's tables live in their own schema; the domain's name by default) and
/// `sslmode=disable|prefer` (prefer by default, as libpq does).
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
    package var useTLS: Bool
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
    self.useTLS = true
    for item in components.queryItems ?? [] {
      switch (item.name, item.value ?? "") {
      case ("schema", let value):
        guard StoreLocation.isIdentifier(value) else {
          throw StoreLocationError("schema \(value) must be letters, digits and underscores, starting with a letter")
        }
        self.schema = value
      case ("sslmode", "disable"): self.useTLS = false
      case ("sslmode", "prefer"), ("sslmode", "allow"): self.useTLS = true
      case ("sslmode", let value):
        throw StoreLocationError("sslmode=\(value) is not supported here (disable or prefer)")
      case (let name, _):
        throw StoreLocationError("unknown database URL option \(name) (schema, sslmode)")
      }
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
