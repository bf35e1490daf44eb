internal import IntentsKit
internal import Prometheus
internal import ServiceKit
internal import Synchronization

/// Group commit in a service's metrics: `intentmesh_store_commits_total` and
/// `intentmesh_store_syncs_total` (commits per sync is what group commit saves), brought up to date
/// when scraped.
enum GroupCommitMetrics {
  static func export(_ store: SQLiteStore, to metrics: RPCMetrics) {
    let commits = metrics.registry.makeCounter(
      descriptor: MetricNameDescriptor(
        namespace: "intentmesh", subsystem: "store", metricName: "commits", unitName: "total",
        helpText: "Write transactions committed to the SQLite store."))
    let syncs = metrics.registry.makeCounter(
      descriptor: MetricNameDescriptor(
        namespace: "intentmesh", subsystem: "store", metricName: "syncs", unitName: "total",
        helpText: "Syncs of the SQLite write-ahead log that made commits durable (group commit: one for many)."))
    let reported = Mutex(SQLiteStore.Durability(commits: 0, durableCommits: 0, syncs: 0))
    metrics.updateBeforeRendering {
      guard let now = store.durability else { return }
      let (newCommits, newSyncs) = reported.withLock { last in
        defer { last = now }
        return (now.commits - last.commits, now.syncs - last.syncs)
      }
      commits.increment(by: Int64(newCommits))
      syncs.increment(by: Int64(newSyncs))
    }
  }
}
