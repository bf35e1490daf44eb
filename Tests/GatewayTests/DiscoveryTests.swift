import Foundation
import Logging
import Testing

@testable import Gateway

/// Discovery without a network: names in the domain list, the hosts file, the plan a lookup makes,
/// and the directory's replicas changing under it.
@Suite("Domain discovery")
struct DiscoveryTests {
  @Test("a domain entry reads as host:port, [IPv6]:port or a name, and prints back the same way")
  func endpoints() throws {
    #expect(
      DomainEndpoint("payments.intentmesh.svc:50062") == DomainEndpoint(host: "payments.intentmesh.svc", port: 50062))
    #expect(DomainEndpoint("[::1]:50061") == DomainEndpoint(host: "::1", port: 50061))
    #expect(DomainEndpoint(" 127.0.0.1:50061 ") == DomainEndpoint(host: "127.0.0.1", port: 50061))
    for bad in ["payments", "payments:0", "payments:65536", ":50061", "[::1:50061", "[]:1", "a b:1", "a/b:1"] {
      #expect(DomainEndpoint(bad) == nil, "\(bad)")
    }
    #expect(DomainEndpoint(host: "::1", port: 50061).description == "[::1]:50061")
    let resolved = DomainEndpoint(host: "10.0.3.7", port: 50062, serverName: "payments.svc")
    #expect(resolved.description == "10.0.3.7:50062 (payments.svc)")
    #expect(resolved.tlsName == "payments.svc")
    #expect(DomainEndpoint(host: "10.0.3.7", port: 1).tlsName == nil)
    #expect(DomainEndpoint(host: "payments", port: 1).tlsName == "payments")
  }

  @Test("a hosts file lists every address of a name in order, ignoring comments, case and junk lines")
  func hostsFile() {
    let file = HostsFile(
      """
      # replicas of payments
      127.0.0.2   payments.test  Pay.Alias   # the second
      127.0.0.3\tpayments.test
      ::1 payments.test
      127.0.0.2 payments.test
      not-an-address payments.test
      127.0.0.9
      """)
    #expect(file.addresses["payments.test"] == ["127.0.0.2", "127.0.0.3", "::1"])
    #expect(file.addresses["pay.alias"] == ["127.0.0.2"])
    #expect(file.addresses.count == 2)
  }

  @Test("the hosts file resolver reads the file at every lookup and asks the fallback for names it lacks")
  func hostsFileResolver() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("hosts-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try "127.0.0.2 payments.test\n".write(toFile: path, atomically: true, encoding: .utf8)
    let resolver = HostsFileResolver(path: path, fallback: FixedResolver(["other.test": ["10.1.1.1"]]))
    #expect(try await resolver.addresses(of: "Payments.Test") == ["127.0.0.2"])
    try "127.0.0.2 payments.test\n127.0.0.3 payments.test\n".write(toFile: path, atomically: true, encoding: .utf8)
    #expect(try await resolver.addresses(of: "payments.test") == ["127.0.0.2", "127.0.0.3"])
    #expect(try await resolver.addresses(of: "other.test") == ["10.1.1.1"])
    await #expect(throws: AddressLookupError.self) { try await resolver.addresses(of: "missing.test") }
  }

  @Test("the system resolver finds loopback by name and says why a name does not resolve")
  func systemResolver() async throws {
    let addresses = try await SystemAddressResolver().addresses(of: "localhost")
    #expect(addresses.contains("127.0.0.1"))
    #expect(Set(addresses).count == addresses.count)
    await #expect(throws: AddressLookupError.self) {
      try await SystemAddressResolver().addresses(of: "no-such-domain.invalid")
    }
  }

  @Test("a plan: addresses stay as they are, a name becomes one replica per address, a failed lookup keeps the last")
  func plan() {
    let entries = [
      DomainEndpoint(host: "127.0.0.1", port: 50061), DomainEndpoint(host: "Payments.test", port: 50062),
      DomainEndpoint(host: "notes.test", port: 50064), DomainEndpoint(host: "127.0.0.1", port: 50061),
    ]
    #expect(ReplicaPlan.names(in: entries) == ["payments.test", "notes.test"])
    let first = ReplicaPlan(
      entries: entries,
      lookups: [
        "payments.test": .success(["10.0.0.1", "10.0.0.2"]),
        "notes.test": .failure(AddressLookupError(name: "notes.test", reason: "NXDOMAIN")),
      ], previous: [:])
    #expect(
      first.endpoints == [
        DomainEndpoint(host: "127.0.0.1", port: 50061),
        DomainEndpoint(host: "10.0.0.1", port: 50062, serverName: "Payments.test"),
        DomainEndpoint(host: "10.0.0.2", port: 50062, serverName: "Payments.test"),
      ])
    #expect(first.failures == ["notes.test": "NXDOMAIN"])
    // Later: notes appears, payments' lookup fails (kept) …
    let second = ReplicaPlan(
      entries: entries,
      lookups: [
        "payments.test": .failure(AddressLookupError(name: "payments.test", reason: "timeout")),
        "notes.test": .success(["10.0.0.9"]),
      ], previous: first.addresses)
    #expect(second.endpoints.map(\.host) == ["127.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.9"])
    // … and a replica leaves; an empty answer keeps the last addresses.
    let third = ReplicaPlan(
      entries: entries, lookups: ["payments.test": .success(["10.0.0.2"]), "notes.test": .success([])],
      previous: second.addresses)
    #expect(third.endpoints.map(\.host) == ["127.0.0.1", "10.0.0.2", "10.0.0.9"])
    #expect(third.failures == ["notes.test": "no addresses"])
  }

  @Test("the domain list reads its file again, notices a change, and refuses a file that is not valid")
  func domainList() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("domains-\(UUID().uuidString).json").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try #"{"domains": ["127.0.0.1:50062"]}"#.write(toFile: path, atomically: true, encoding: .utf8)
    let list = DomainList(fixed: [DomainEndpoint(host: "127.0.0.1", port: 50061)], file: path)
    #expect(try list.entries().map(\.port) == [50061, 50062])
    #expect(!list.fileChanged())
    try #"{"domains": ["127.0.0.1:50062", "notes.test:50064"]}"#.write(toFile: path, atomically: true, encoding: .utf8)
    #expect(list.fileChanged())
    #expect(try list.entries().map(\.description) == ["127.0.0.1:50061", "127.0.0.1:50062", "notes.test:50064"])
    #expect(!list.fileChanged())
    try #"{"domains": ["notes.test"]}"#.write(toFile: path, atomically: true, encoding: .utf8)
    #expect(list.fileChanged())
    #expect(throws: GatewayError.self) { try list.entries() }
    #expect(!list.fileChanged(), "a bad file is reported once, not at every check")
    try "{".write(toFile: path, atomically: true, encoding: .utf8)
    #expect(throws: GatewayError.self) { try list.entries() }
  }

  @Test("the directory adds replicas, and takes one that leaves out of routing at once")
  func directoryReplicas() throws {
    let directory = try DomainDirectory(
      endpoints: [DomainEndpoint(host: "127.0.0.1", port: 1)], refreshInterval: .seconds(60),
      logger: Logger(label: "test"))
    let second = DomainEndpoint(host: "127.0.0.2", port: 1, serverName: "a.test")
    let change = try directory.setEndpoints([DomainEndpoint(host: "127.0.0.1", port: 1), second, second])
    #expect(change.added == [second])
    #expect(change.removed.isEmpty)
    #expect(directory.statuses.map(\.0) == [DomainEndpoint(host: "127.0.0.1", port: 1), second])
    let first = try #require(directory.connection(for: DomainEndpoint(host: "127.0.0.1", port: 1)))
    let again = try directory.setEndpoints([second])
    #expect(again.removed == [DomainEndpoint(host: "127.0.0.1", port: 1)])
    #expect(directory.statuses.map(\.0) == [second])
    // A call that chose it just before it left still finds its connection while it drains.
    #expect(directory.connection(for: DomainEndpoint(host: "127.0.0.1", port: 1)) === first)
    #expect(try directory.setEndpoints([second]) == ([], []))
  }
}

/// Answers from a fixed table.
private struct FixedResolver: AddressResolver {
  var table: [String: [String]]
  init(_ table: [String: [String]]) { self.table = table }
  func addresses(of name: String) async throws -> [String] {
    guard let found = table[name] else { throw AddressLookupError(name: name, reason: "not in the table") }
    return found
  }
}
