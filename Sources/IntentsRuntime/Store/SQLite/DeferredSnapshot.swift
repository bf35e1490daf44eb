/// When a reader connection's read transaction takes SQLite's snapshot. Beginning one costs the
/// WAL's read locks (`fcntl` on the `-shm` file, a mutex the event loops contend for) and ending it
/// releases them — for a read whose every value is kept (`ReadCache`), all of its SQLite work. So
/// the snapshot is deferred until a statement must run; a cached read before then is answered at
/// the stamp the connection's last snapshot had, if the WAL index header
/// (`WALIndex`) is still the one read just before that snapshot began: nothing committed since, so
/// a snapshot taken now would be the same. When a statement must run after such an answer, the
/// snapshot begun for it must have that same stamp; if a commit came in between it has not, and
/// the transaction's body runs again with its snapshot taken first (`moved`).
///
/// The phases and what moves between them, without SQLite; `SQLiteHandle` runs the statements.
struct DeferredSnapshot {
  enum Phase: Equatable {
    /// No read transaction.
    case idle
    /// A read transaction whose snapshot SQLite has not taken yet; `reused`, once a cached read
    /// has been answered without one, the stamp it was answered at.
    case deferred(reused: ReadCache.Stamp?)
    /// SQLite's transaction is open. `headerBefore`: the WAL index header read just before it
    /// began, until the snapshot's stamp is read; `reused`: as in `deferred`, to be checked
    /// against that stamp.
    case begun(headerBefore: WALIndex.Header?, reused: ReadCache.Stamp?)
    /// The snapshot begun has another stamp than the one cached reads were answered at: what the
    /// transaction's body has read is of two states, and it must run again.
    case moved
  }

  private(set) var phase = Phase.idle
  /// A header read just before a snapshot began, and that snapshot's stamp: while the header
  /// reads the same, a snapshot taken now has that stamp.
  private var known: (header: WALIndex.Header, stamp: ReadCache.Stamp)?

  /// A read transaction starts; true when SQLite's snapshot is to be taken now (`deferring` off).
  mutating func start(deferring: Bool) -> Bool {
    phase = deferring ? .deferred(reused: nil) : .begun(headerBefore: nil, reused: nil)
    return !deferring
  }

  /// Whether a statement must begin SQLite's transaction before it runs.
  var awaitsSnapshot: Bool {
    if case .deferred = phase { return true }
    return false
  }

  /// The stamp a cached read is answered at without a snapshot, when `header` (read now) is the
  /// known one — or was, for an earlier read of this transaction; nil when a snapshot must be
  /// taken.
  mutating func stampWithoutSnapshot(header: () -> WALIndex.Header?) -> ReadCache.Stamp? {
    guard case .deferred(let reused) = phase else { return nil }
    if let reused { return reused }
    guard let known, let now = header(), now == known.header else { return nil }
    phase = .deferred(reused: known.stamp)
    return known.stamp
  }

  /// SQLite's transaction has begun, `header` read just before it. True when its stamp must be
  /// read now, to check it against the stamp cached reads were answered at.
  mutating func began(headerBefore header: WALIndex.Header?) -> Bool {
    let reused: ReadCache.Stamp?
    if case .deferred(let earlier) = phase { reused = earlier } else { reused = nil }
    phase = .begun(headerBefore: header, reused: reused)
    return reused != nil
  }

  /// The stamp of the snapshot begun has been read: it is known for the header read before it,
  /// and it must be the one cached reads were answered at. False (and `moved`) when it is not.
  mutating func read(_ stamp: ReadCache.Stamp) -> Bool {
    guard case .begun(let header, let reused) = phase else { return true }
    if let reused, reused != stamp {
      phase = .moved
      return false
    }
    if let header { known = (header, stamp) }
    phase = .begun(headerBefore: nil, reused: nil)
    return true
  }

  /// The transaction has ended, committed or rolled back.
  mutating func end() { phase = .idle }

  /// Whether SQLite's transaction is open.
  var isBegun: Bool {
    if case .begun = phase { return true }
    return false
  }

  var isMoved: Bool { phase == .moved }
}
