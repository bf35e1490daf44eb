internal import IntentsKit
internal import Prometheus
internal import ServiceKit
internal import Synchronization

/// Group commit in a service's metrics: `intentmesh_store_writes_total`,
/// `intentmesh_store_commits_total` and `intentmesh_store_syncs_total` (writes per commit and
/// commits per sync are what write batches and group commit save), and
/// `intentmesh_store_checkpoint_failures_total`; brought up to date when scraped.
enum GroupCommitMetrics {
  static func export(_ store: SQLiteStore, to metrics: RPCMetrics) {
    let writes = metrics.registry.makeCounter(
      descriptor: MetricNameDescriptor(
        namespace: "intentmesh", subsystem: "store", metricName: "writes", unitName: "total",
        helpText: "Write transactions committed to the SQLite store."))
    let commits = metrics.registry.makeCounter(
      descriptor: MetricNameDescriptor(
        namespace: "intentmesh", subsystem: "store", metricName: "commits", unitName: "total",
        helpText: "SQLite commits: each carries one or more write transactions (a write batch)."))
    let syncs = metrics.registry.makeCounter(
      descriptor: MetricNameDescriptor(
        namespace: "intentmesh", subsystem: "store", metricName: "syncs", unitName: "total",
        helpText: "Syncs of the SQLite write-ahead log that made commits durable (group commit: one for many)."))
    let failedCheckpoints = metrics.registry.makeCounter(
      descriptor: MetricNameDescriptor(
        namespace: "intentmesh", subsystem: "store", metricName: "checkpoint_failures", unitName: "total",
        helpText: "Checkpoints of the write-ahead log into the database that failed (tried again as the log grows)."))
    let reported = Mutex(SQLiteStore.Durability(writes: 0, commits: 0, durableCommits: 0, syncs: 0))
    metrics.updateBeforeRendering {
      // Read under the lock: two scrapes at once each take a reading no older than the last one
      // reported (every count only grows).
      let reading = reported.withLock { last -> (last: SQLiteStore.Durability, now: SQLiteStore.Durability)? in
        guard let now = store.durability else { return nil }
        defer { last = now }
        return (last, now)
      }
      guard let (last, now) = reading else { return }
      writes.increment(by: Int64(now.writes - last.writes))
      commits.increment(by: Int64(now.commits - last.commits))
      syncs.increment(by: Int64(now.syncs - last.syncs))
      failedCheckpoints.increment(by: Int64(now.failedCheckpoints - last.failedCheckpoints))
    }
  }
}
