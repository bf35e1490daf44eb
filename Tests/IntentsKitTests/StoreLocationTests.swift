@testable import IntentsKit
@testable import IntentsRuntime
import Testing

@Suite("Store location")
struct StoreLocationTests {
  @Test("a path or sqlite: URL is a SQLite file")
  func sqlite() throws {
    #expect(try StoreLocation(parsing: "data/payments.sqlite") == .sqlite(path: "data/payments.sqlite"))
    #expect(try StoreLocation(parsing: ":memory:") == .sqlite(path: ":memory:"))
    #expect(try StoreLocation(parsing: "sqlite:///var/lib/x.sqlite") == .sqlite(path: "/var/lib/x.sqlite"))
  }

  @Test("a postgres URL gives server, user, password, database, schema and TLS")
  func postgres() throws {
    let location = try StoreLocation(
      parsing: "postgresql://pay%40ops:s3cret@db.internal:6543/intentmesh?schema=payments_eu&sslmode=disable")
    guard case .postgres(let postgres) = location else {
      Issue.record("not postgres: \(location)")
      return
    }
    #expect(postgres.host == "db.internal")
    #expect(postgres.port == 6543)
    #expect(postgres.username == "pay@ops")
    #expect(postgres.password == "s3cret")
    #expect(postgres.database == "intentmesh")
    #expect(postgres.schema == "payments_eu")
    #expect(postgres.tls == .disable)
    #expect(!location.redacted.contains("s3cret"))
    guard case .postgres(let plain) = try StoreLocation(parsing: "postgres://me@localhost/db") else { return }
    #expect(plain.port == 5432 && plain.tls == .prefer && plain.schema == nil && plain.password == nil)
  }

  @Test(
    "sslmode as libpq takes it, sslrootcert with the verify modes",
    arguments: [
      ("", StoreLocation.TLSMode.prefer), ("?sslmode=disable", .disable), ("?sslmode=allow", .prefer),
      ("?sslmode=prefer", .prefer), ("?sslmode=require", .require),
      ("?sslmode=verify-ca", .verifyCA(rootCertificate: nil)),
      ("?sslmode=verify-full&sslrootcert=/etc/ca.pem", .verifyFull(rootCertificate: "/etc/ca.pem")),
      ("?sslrootcert=/etc/ca.pem&sslmode=verify-ca", .verifyCA(rootCertificate: "/etc/ca.pem")),
    ])
  func tlsModes(_ query: String, _ mode: StoreLocation.TLSMode) throws {
    guard case .postgres(let location) = try StoreLocation(parsing: "postgres://me@db.internal/intentmesh\(query)")
    else {
      Issue.record("not postgres")
      return
    }
    #expect(location.tls == mode)
    #expect(location.tls.isRequired == ![.prefer, .disable].contains(mode))
  }

  @Test(
    "bad locations are refused with the reason",
    arguments: [
      ("", "empty"), ("mysql://me@host/db", "unknown database scheme"), ("postgres://host/db", "names no user"),
      ("postgres://me@host/db?schema=Drop;Table", "schema"), ("postgres://me@host/db?sslmode=strict", "sslmode"),
      ("postgres://me@host/db?sslmode=require&sslrootcert=/ca.pem", "sslrootcert is for"),
      ("postgres://me@host/db?sslmode=verify-full&sslrootcert=", "names no file"),
      ("postgres://me@host/db?pool=3", "unknown database URL option"),
    ])
  func refused(text: String, reason: String) {
    #expect {
      _ = try StoreLocation(parsing: text)
    } throws: { error in
      "\(error)".contains(reason)
    }
  }

  @Test("a domain's default schema is its service name without -service")
  func defaultSchema() {
    #expect(StoreOpener.defaultSchema(forService: "payments-service") == "payments")
    #expect(StoreOpener.defaultSchema(forService: "ridebooking-service") == "ridebooking")
  }
}
