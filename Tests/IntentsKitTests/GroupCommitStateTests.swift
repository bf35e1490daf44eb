import Testing

@testable import IntentsKit
@testable import IntentsRuntime

@Suite("Group commit bookkeeping")
struct GroupCommitStateTests {
  struct DiskFull: Error {}

  @Test("the first waiter starts a sync covering every commit so far; the sync answers them all")
  func firstWaiterStartsSync() {
    var state = GroupCommitState<String>()
    let a = state.commit()
    let b = state.commit()
    guard case .wait(startSync: 2) = state.wait(for: a, "a") else { Issue.record("a starts no sync"); return }
    guard case .wait(startSync: nil) = state.wait(for: b, "b") else { Issue.record("b starts a second sync"); return }
    let ended = state.syncSucceeded()
    #expect(ended.resume == ["a", "b"])
    #expect(ended.startSync == nil)
    #expect(state.isDurable(b))
    guard case .durable = state.wait(for: b, "b again") else { Issue.record("b is not durable"); return }
  }

  @Test("a commit made while a sync runs waits for the next sync, which starts when the running one ends")
  func commitDuringSyncWaitsForNext() {
    var state = GroupCommitState<String>()
    let a = state.commit()
    _ = state.wait(for: a, "a")
    // The sync covering commit 1 is on the disk now; these commit meanwhile.
    let b = state.commit()
    let c = state.commit()
    guard case .wait(startSync: nil) = state.wait(for: b, "b") else { Issue.record("b starts a sync"); return }
    guard case .wait(startSync: nil) = state.wait(for: c, "c") else { Issue.record("c starts a sync"); return }
    #expect(!state.isDurable(b))
    let first = state.syncSucceeded()
    #expect(first.resume == ["a"])
    #expect(first.startSync == 3)
    let second = state.syncSucceeded()
    #expect(second.resume == ["b", "c"])
    #expect(second.startSync == nil)
    #expect(state.durable == 3)
  }

  @Test("a read that saw a commit still being made is answered only by a sync begun after the commit ended")
  func readOfCommitBeingMade() {
    var state = GroupCommitState<String>()
    let a = state.commit()
    _ = state.wait(for: a, "a")
    // While the sync covering commit 1 runs, commit 2's COMMIT starts, and a read sees it before
    // the writer is back.
    let b = state.beginCommit()
    guard case .wait(startSync: nil) = state.wait(for: state.numbered, "read") else {
      Issue.record("the read starts a sync")
      return
    }
    let first = state.syncSucceeded()
    #expect(first.resume == ["a"])
    #expect(first.startSync == nil, "a sync now could not cover commit 2")
    #expect(!state.isDurable(b))
    #expect(state.commitEnded(b, succeeded: true) == 2)
    let second = state.syncSucceeded()
    #expect(second.resume == ["read"])
    #expect(state.durable == 2)
  }

  @Test("a commit still being made when nothing syncs: its end starts the sync its readers wait for")
  func commitEndStartsSync() {
    var state = GroupCommitState<String>()
    let a = state.beginCommit()
    guard case .wait(startSync: nil) = state.wait(for: a, "read") else { Issue.record("a sync starts"); return }
    #expect(state.commitEnded(a, succeeded: false) == 1, "a failed COMMIT keeps its number")
    #expect(state.syncSucceeded().resume == ["read"])
    #expect((state.made, state.committed, state.durable) == (0, 1, 1))
    // Nobody waiting: a commit's end starts nothing.
    let b = state.beginCommit()
    #expect(state.commitEnded(b, succeeded: true) == nil)
    #expect(state.made == 1)
  }

  @Test("many commits share one sync: 100 writers, two syncs")
  func manyCommitsShareASync() {
    var state = GroupCommitState<Int>()
    var syncs = 0
    var answered: [Int] = []
    // Writer 0 commits and starts a sync; writers 1…99 commit while it runs.
    for writer in 0..<100 {
      if case .wait(let start) = state.wait(for: state.commit(), writer), start != nil { syncs += 1 }
    }
    while true {
      let ended = state.syncSucceeded()
      answered += ended.resume
      guard ended.startSync != nil else { break }
      syncs += 1
    }
    #expect(syncs == 2)
    #expect(answered == Array(0..<100))
  }

  @Test("a failed sync fails every waiter and every later caller; nothing is called durable again")
  func failedSyncIsFinal() {
    var state = GroupCommitState<String>()
    let a = state.commit()
    _ = state.wait(for: a, "a")
    let b = state.commit()
    _ = state.wait(for: b, "b")
    let ended = state.syncFailed(DiskFull())
    #expect(ended.resume == ["a", "b"])
    #expect(ended.startSync == nil)
    #expect(!state.isDurable(a))
    guard case .fail(let error) = state.wait(for: state.commit(), "c") else { Issue.record("c waits"); return }
    #expect(error is DiskFull)
  }

  @Test("a sync that ends when none was running changes nothing")
  func strayEndIsIgnored() {
    var state = GroupCommitState<String>()
    _ = state.commit()
    let ended = state.syncSucceeded()
    #expect(ended.resume.isEmpty)
    #expect(state.durable == 0)
  }
}

extension GroupCommitState {
  /// A commit begun and ended at once, as one that no read saw while it was being made.
  fileprivate mutating func commit() -> UInt64 {
    let sequence = beginCommit()
    _ = commitEnded(sequence, succeeded: true)
    return sequence
  }
}
