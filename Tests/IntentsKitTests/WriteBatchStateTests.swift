import Testing

@testable import IntentsRuntime

@Suite("Write batch bookkeeping")
struct WriteBatchStateTests {
  struct DiskFull: Error {}

  @Test("members that joined wait; the commit answers them all with its number")
  func commitAnswersEveryMember() {
    var state = WriteBatchState<String>()
    state.enter()
    state.join()
    state.enter()
    state.join()
    #expect(state.members == 2 && state.joined == 2)
    guard case .wait = state.wait("a"), case .wait = state.wait("b") else {
      Issue.record("a member of an open batch did not wait")
      return
    }
    #expect(state.commit(sequence: 7) == ["a", "b"])
    #expect(!state.isOpen)
    guard case .committed(sequence: 7) = state.wait("late") else {
      Issue.record("a member asking after the commit does not learn its number")
      return
    }
  }

  @Test("a member whose work failed counts toward the batch's size but not its work")
  func failedMemberLeaves() {
    var state = WriteBatchState<String>()
    state.enter()
    state.join()
    state.enter()  // this one's work fails: it is rolled back to its savepoint and never joins
    #expect(state.members == 2)
    #expect(state.joined == 1)
    #expect(state.isOpen)
  }

  @Test("a failed batch answers every waiting member with the failure, and later askers too")
  func failureAnswersEveryMember() {
    var state = WriteBatchState<Int>()
    for member in 0..<3 {
      state.enter()
      state.join()
      _ = state.wait(member)
    }
    #expect(state.fail(DiskFull()) == [0, 1, 2])
    guard case .fail(let error) = state.wait(3), error is DiskFull else {
      Issue.record("a member asking after the failure is not told")
      return
    }
    // A batch ends once: a commit after the failure wakes no one.
    #expect(state.commit(sequence: 1).isEmpty)
    guard case .failed = state.phase else {
      Issue.record("the failure was overwritten")
      return
    }
  }
}
