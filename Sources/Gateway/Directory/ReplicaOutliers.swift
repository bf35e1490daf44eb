/// Which replicas of a domain are taken out of rotation because their calls time out (outlier
/// detection, as Envoy's): a replica whose last `threshold` calls in a row ended without an answer
/// in time (DEADLINE_EXCEEDED, UNAVAILABLE, or given up by the caller before a byte came back) is
/// ejected for `baseEjection`, doubled at each ejection in a row up to `maxEjection`; once the time
/// is up it gets calls again — one failure then puts it out again, one answered call brings it
/// fully back. A silent host — a
/// partition, a paused process — answers no health check either, but its health watch just goes
/// quiet, so only the calls can tell. At most half of an app's replicas are left out (the ones
/// ejected longest ago come back first): ejecting every replica would refuse every call.
struct ReplicaOutliers: Sendable {
  struct Record: Sendable {
    var failuresInARow = 0
    var ejections = 0
    var ejectedUntil: ContinuousClock.Instant?
  }

  var threshold = 3
  var baseEjection: Duration = .seconds(5)
  var maxEjection: Duration = .seconds(60)
  private(set) var records: [DomainEndpoint: Record] = [:]

  /// A call to `endpoint` ended: answered (`failed` false), or without an answer in time.
  /// Returns true when this failure ejected it.
  @discardableResult
  mutating func record(_ endpoint: DomainEndpoint, failed: Bool, now: ContinuousClock.Instant) -> Bool {
    var record = records[endpoint, default: Record()]
    defer { records[endpoint] = record.failuresInARow == 0 && record.ejections == 0 ? nil : record }
    guard failed else {
      record.failuresInARow = 0
      if record.ejectedUntil.map({ $0 <= now }) ?? true {
        record.ejections = 0
        record.ejectedUntil = nil
      }
      return false
    }
    record.failuresInARow += 1
    // Back from an ejection and not yet answered a call: one failure puts it out again.
    let needed = record.ejections > 0 ? 1 : threshold
    guard record.failuresInARow >= needed, record.ejectedUntil.map({ $0 <= now }) ?? true else { return false }
    let factor = 1 << min(record.ejections, 16)
    record.ejectedUntil = now + min(baseEjection * factor, maxEjection)
    record.ejections += 1
    record.failuresInARow = 0
    return true
  }

  /// Whether `endpoint` is out of rotation at `now`.
  func isEjected(_ endpoint: DomainEndpoint, now: ContinuousClock.Instant) -> Bool {
    records[endpoint]?.ejectedUntil.map { $0 > now } ?? false
  }

  /// `replicas` without the ejected ones, leaving out no more than half of them (rounded down).
  func available(among replicas: [DomainEndpoint], now: ContinuousClock.Instant) -> [DomainEndpoint] {
    let ejected = replicas.filter { isEjected($0, now: now) }
    guard !ejected.isEmpty else { return replicas }
    let allowed = replicas.count / 2
    // The ones ejected longest ago (their time up soonest) come back first.
    let left = ejected.sorted { records[$0]!.ejectedUntil! > records[$1]!.ejectedUntil! }.prefix(allowed)
    return replicas.filter { !left.contains($0) }
  }
}
