/// Which bytes of one side a translated call still owes, by the DATA it sent the other side: each
/// piece sent records how many bytes it carries and how many it was made from; as its bytes
/// leave, the bytes it was made from are granted back, in proportion and the remainder with its
/// last byte. Each recorded byte is granted back exactly once. Used by `RelayedCall` for web calls,
/// whose pieces are larger or smaller than what they were made from (base64, JSON, envelopes).
struct CreditLedger: Equatable {
  private struct Entry: Equatable {
    let carried: Int
    let source: Int
    var sent = 0
    var granted = 0
  }

  private var entries: [Entry] = []
  private var head = 0

  /// A piece of `carried` DATA bytes, made from `source` bytes still owed, is on its way. Returns
  /// the bytes to grant back now: those of a piece that carries none (nothing of it is counted
  /// as it leaves).
  mutating func record(carried: Int, source: Int) -> Int {
    guard carried > 0 else { return source }
    entries.append(Entry(carried: carried, source: source))
    return 0
  }

  /// `bytes` of DATA have left: the source bytes to grant back for them.
  mutating func sent(_ bytes: Int) -> Int {
    var bytes = bytes
    var granted = 0
    while bytes > 0, head < entries.count {
      let take = min(bytes, entries[head].carried - entries[head].sent)
      entries[head].sent += take
      bytes -= take
      let whole = entries[head].sent == entries[head].carried
      let due = whole ? entries[head].source : entries[head].source * entries[head].sent / entries[head].carried
      granted += due - entries[head].granted
      entries[head].granted = due
      if whole { head += 1 }
    }
    if head > 64, head * 2 > entries.count {
      entries.removeFirst(head)
      head = 0
    }
    return granted
  }

  /// Source bytes recorded and not yet granted back.
  var owed: Int {
    entries[head...].reduce(0) { $0 + $1.source - $1.granted }
  }
}
