#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import AsyncHTTPClient
internal import NIOCore
internal import NIOHTTP1

/// Where the JWKS comes from: a file (the one `intentmesh up` writes, or a mounted secret), or the
/// HTTPS URL an OIDC provider publishes as `jwks_uri`.
package enum KeySetSource: Sendable, Equatable, CustomStringConvertible {
  case file(String)
  case url(String)

  /// The JWKS client: no redirects (one could lead from https to http, or elsewhere).
  static let client = HTTPClient(
    eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .disallow))

  /// Largest JWKS document read: real ones are a few KiB.
  static let maximumBytes = 1 << 20

  /// `text` as a source: an http(s) URL, or a file path. Plain http only to loopback. The host is
  /// what a URL parser makes of the URL (in `http://localhost:80@evil.example/` it is evil.example),
  /// and a URL that carries user info is refused outright.
  package init(parsing text: String) throws {
    let lower = text.lowercased()
    guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
      guard !text.isEmpty else { throw KeySetError.unreadable("the JWKS location is empty") }
      self = .file(text)
      return
    }
    guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased() else {
      throw KeySetError.unreadable("the JWKS URL does not parse: \(text)")
    }
    guard parts.user == nil, parts.password == nil, !(parts.percentEncodedHost ?? "").contains("@") else {
      throw KeySetError.unreadable("a JWKS URL must not carry user info: \(text)")
    }
    guard let host = parts.host, !host.isEmpty else {
      throw KeySetError.unreadable("a JWKS URL must name a host: \(text)")
    }
    if scheme == "http" {
      let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
      guard ["127.0.0.1", "localhost", "::1"].contains(bare.lowercased()) else {
        throw KeySetError.unreadable("a JWKS URL must be https (plain http only to loopback): \(text)")
      }
    }
    self = .url(text)
  }

  package var description: String {
    switch self {
    case .file(let path): path
    case .url(let url): url
    }
  }

  /// The document's bytes.
  package func load(timeout: Duration = .seconds(10)) async throws -> [UInt8] {
    switch self {
    case .file(let path):
      let data: Data
      do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
        throw KeySetError.unreadable("cannot read the JWKS file \(path)")
      }
      guard data.count <= Self.maximumBytes else { throw KeySetError.unreadable("the JWKS file \(path) is too large") }
      return [UInt8](data)
    case .url(let url):
      var request = HTTPClientRequest(url: url)
      request.headers.add(name: "accept", value: "application/json")
      do {
        let response = try await Self.client.execute(
          request, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000))
        guard response.status == .ok else {
          throw KeySetError.unreadable("GET \(url) answered \(response.status.code)")
        }
        let body = try await response.body.collect(upTo: Self.maximumBytes)
        return Array(body.readableBytesView)
      } catch let error as KeySetError {
        throw error
      } catch {
        throw KeySetError.unreadable("GET \(url) failed: \(error)")
      }
    }
  }
}
