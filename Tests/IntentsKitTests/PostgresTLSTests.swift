import Foundation
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
import NIOCore
import NIOPosix
import SQLKit
import Synchronization
import Testing

/// The connection to PostgreSQL as `sslmode` says: `require` and the `verify-` modes never fall back
/// to plaintext (a server, or an attacker on the path, that declines TLS gets no connection, where
/// `prefer` would go on in the clear); `verify-full` takes only a certificate of the configured CA
/// that names the host. Against the test server (`scripts/start-postgres`: TLS with a certificate
/// for "localhost" from its own CA) when INTENTMESH_TEST_POSTGRES_URL and _CA are set.
@Suite("PostgreSQL over TLS: sslmode require, verify-ca and verify-full", .serialized)
struct PostgresTLSTests {
  static var server: (url: URLComponents, ca: String)? {
    let environment = ProcessInfo.processInfo.environment
    guard let url = environment["INTENTMESH_TEST_POSTGRES_URL"].flatMap(URLComponents.init(string:)),
      let ca = environment["INTENTMESH_TEST_POSTGRES_CA"]
    else { return nil }
    return (url, ca)
  }

  /// The test server's URL with `host` and the query `options` in place of its own.
  static func location(host: String, _ options: String) throws -> StoreLocation.PostgresLocation {
    var url = try #require(server?.url)
    url.host = host
    url.query = options
    guard case .postgres(let location) = try StoreLocation(parsing: try #require(url.string)) else {
      throw StoreLocationError("not postgres")
    }
    return location
  }

  /// Opens the store and reads whether the session is encrypted (pg_stat_ssl).
  static func encrypted(_ location: StoreLocation.PostgresLocation) async throws -> Bool {
    let store = try await PostgresStore.open(location, defaultSchema: "tls_test", logger: TestStore.quietLogger)
    do {
      let ssl = try await store.read { database in
        try await database.raw("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").first()?.decode(
          column: "ssl", as: Bool.self)
      }
      try await store.close()
      return ssl == true
    } catch {
      try? await store.close()
      throw error
    }
  }

  @Test(
    "require, verify-ca and verify-full (with the CA, by the certificate's name) connect encrypted; prefer does too",
    .enabled(if: server != nil))
  func connects() async throws {
    let ca = try #require(Self.server?.ca)
    #expect(try await Self.encrypted(try Self.location(host: "127.0.0.1", "sslmode=require")))
    #expect(try await Self.encrypted(try Self.location(host: "127.0.0.1", "sslmode=verify-ca&sslrootcert=\(ca)")))
    #expect(try await Self.encrypted(try Self.location(host: "localhost", "sslmode=verify-full&sslrootcert=\(ca)")))
    #expect(try await Self.encrypted(try Self.location(host: "127.0.0.1", "sslmode=prefer")))
    #expect(try await !Self.encrypted(try Self.location(host: "127.0.0.1", "sslmode=disable")))
  }

  @Test(
    "verify-full refuses a certificate that does not name the host, or of another CA; verify-ca one of another CA",
    .enabled(if: server != nil))
  func refusesWrongCertificates() async throws {
    let ca = try #require(Self.server?.ca)
    let certificates = try TestCertificates.make()
    defer { certificates.remove() }
    let other = certificates.caCertificate
    await #expect(throws: (any Error).self, "the certificate names localhost, not 127.0.0.1") {
      _ = try await Self.encrypted(try Self.location(host: "127.0.0.1", "sslmode=verify-full&sslrootcert=\(ca)"))
    }
    await #expect(throws: (any Error).self, "another CA") {
      _ = try await Self.encrypted(try Self.location(host: "localhost", "sslmode=verify-full&sslrootcert=\(other)"))
    }
    await #expect(throws: (any Error).self, "another CA") {
      _ = try await Self.encrypted(try Self.location(host: "127.0.0.1", "sslmode=verify-ca&sslrootcert=\(other)"))
    }
    await #expect(throws: (any Error).self, "no such file") {
      _ = try await Self.encrypted(
        try Self.location(host: "localhost", "sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"))
    }
  }

  @Test("a server that declines TLS ('N' to SSLRequest, as a stripping attacker answers): require refuses to go on")
  func requireRefusesPlaintext() async throws {
    // Answers PostgreSQL's SSLRequest with "N" and then whatever comes with nothing: a client that
    // goes on in plaintext sends its startup message, which this records.
    let sawStartup = Flag()
    let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .childChannelInitializer { channel in
        channel.pipeline.addHandler(DecliningTLS(sawStartup: sawStartup))
      }
      .bind(host: "127.0.0.1", port: 0).get()
    defer { listener.close(promise: nil) }
    let port = try #require(listener.localAddress?.port)
    let parsed = try StoreLocation(parsing: "postgres://me@127.0.0.1:\(port)/db?sslmode=require")
    guard case .postgres(let location) = parsed else { return }
    await #expect(throws: (any Error).self) {
      _ = try await PostgresStore.open(location, defaultSchema: "tls_test", logger: TestStore.quietLogger)
    }
    #expect(!sawStartup.isSet, "require sent its startup message in plaintext")
    // prefer goes on in the clear: what the stripping attacker wanted (and what shows the check works).
    let preferred = try StoreLocation(parsing: "postgres://me@127.0.0.1:\(port)/db?sslmode=prefer")
    guard case .postgres(let plain) = preferred else { return }
    await #expect(throws: (any Error).self) {
      _ = try await PostgresStore.open(plain, defaultSchema: "tls_test", logger: TestStore.quietLogger)
    }
    #expect(sawStartup.isSet, "prefer did not go on after the server declined TLS")
  }
}

/// A flag set once, from any thread.
private final class Flag: Sendable {
  private let state = Atomic<Bool>(false)
  var isSet: Bool { state.load(ordering: .relaxed) }
  func set() { state.store(true, ordering: .relaxed) }
}

/// A peer that declines TLS: "N" to the 8-byte SSLRequest; notes any bytes after it.
private final class DecliningTLS: ChannelInboundHandler, Sendable {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer
  let sawStartup: Flag
  private let answered = Flag()

  init(sawStartup: Flag) {
    self.sawStartup = sawStartup
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let bytes = unwrapInboundIn(data)
    if answered.isSet {
      if bytes.readableBytes > 0 { sawStartup.set() }
      return
    }
    answered.set()
    if bytes.readableBytes > 8 { sawStartup.set() }
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: Array("N".utf8))), promise: nil)
  }
}
