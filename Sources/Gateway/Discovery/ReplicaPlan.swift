/// The replicas a domain list stands for at one moment: an entry written as an address is one
/// replica; an entry written as a name is one replica per address the name resolved to, each
/// keeping the name (for TLS and the authority). A name that fails to resolve, or resolves to
/// nothing, keeps the addresses it had: a DNS outage must not empty the routing table.
struct ReplicaPlan: Sendable, Equatable {
  /// Every replica, in the list's order, without repeats.
  var endpoints: [DomainEndpoint] = []
  /// The addresses each name stands for now (carried to the next plan).
  var addresses: [String: [String]] = [:]
  /// The names that did not resolve this time, and why.
  var failures: [String: String] = [:]

  /// The names among `entries` that must be looked up.
  static func names(in entries: [DomainEndpoint]) -> [String] {
    var seen = Set<String>()
    return entries.filter { !$0.host.isIPAddress }.map { $0.host.lowercased() }.filter { seen.insert($0).inserted }
  }

  /// The plan for `entries`, given each name's lookup and the previous plan's addresses.
  init(entries: [DomainEndpoint], lookups: [String: Result<[String], AddressLookupError>], previous: [String: [String]])
  {
    var seen = Set<DomainEndpoint>()
    for entry in entries {
      guard !entry.host.isIPAddress else {
        if seen.insert(entry).inserted { endpoints.append(entry) }
        continue
      }
      let name = entry.host.lowercased()
      let found: [String]
      switch lookups[name] {
      case .success(let list) where !list.isEmpty:
        found = list
      case .success:
        failures[name] = "no addresses"
        found = previous[name] ?? []
      case .failure(let error):
        failures[name] = error.reason
        found = previous[name] ?? []
      case nil:
        found = previous[name] ?? []
      }
      addresses[name] = found
      for address in found {
        let endpoint = DomainEndpoint(host: address, port: entry.port, serverName: entry.host)
        if seen.insert(endpoint).inserted { endpoints.append(endpoint) }
      }
    }
  }
}
