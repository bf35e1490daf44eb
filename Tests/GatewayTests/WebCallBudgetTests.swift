import IntentMeshCore
import Testing

@testable import Gateway

@Suite("Web calls: a place for each, a share for each user")
struct WebCallBudgetTests {
  @Test("a user's calls and streams are capped; other users keep theirs; released places come back")
  func shares() throws {
    let budget = WebCallBudget(total: 6, perUser: 3, streamsPerUser: 2)
    let (diana, scott) = (UserKey("diana"), UserKey("scott"))
    try budget.acquire(user: diana, streaming: true)
    try budget.acquire(user: diana, streaming: true)
    #expect(throws: WebCallBudget.Refusal.userStreamsFull(streamsPerUser: 2)) {
      try budget.acquire(user: diana, streaming: true)
    }
    try budget.acquire(user: diana, streaming: false)
    #expect(throws: WebCallBudget.Refusal.userFull(perUser: 3)) { try budget.acquire(user: diana, streaming: false) }
    // Scott is not held up by Diana's streams.
    try budget.acquire(user: scott, streaming: true)
    try budget.acquire(user: scott, streaming: false)
    #expect(budget.inFlight(user: diana) == (3, 2))
    #expect(budget.inFlight() == (5, 3))
    budget.release(user: diana, streaming: true)
    try budget.acquire(user: diana, streaming: true)
    // The gateway's total still holds past every share.
    try budget.acquire(user: UserKey(""), streaming: false)
    #expect(throws: WebCallBudget.Refusal.gatewayFull(total: 6)) {
      try budget.acquire(user: UserKey("ezra"), streaming: false)
    }
    for _ in 0..<2 { budget.release(user: diana, streaming: true) }
    budget.release(user: diana, streaming: false)
    budget.release(user: scott, streaming: true)
    budget.release(user: scott, streaming: false)
    budget.release(user: UserKey(""), streaming: false)
    #expect(budget.inFlight() == (0, 0))
  }

  @Test("canonically equivalent user ids are two users' shares")
  func usersByBytes() throws {
    let budget = WebCallBudget(total: 4, perUser: 1, streamsPerUser: 1)
    try budget.acquire(user: UserKey("Kate"), streaming: true)
    try budget.acquire(user: UserKey("\u{212A}ate"), streaming: true)
    #expect(budget.inFlight(user: UserKey("Kate")) == (1, 1))
  }

  @Test("a web stream's deadline: the caller's, never past the longest a web stream stays open")
  func streamDeadline() {
    let longest = ConnectUpstream.maximumStreamDuration
    #expect(longest == .seconds(900))
    let deadline = CallDeadline(defaultTimeout: .seconds(10), maximumTimeout: .seconds(30))
    #expect(ConnectUpstream.timeout(asked: nil, streaming: true, deadline: deadline) == longest)
    #expect(ConnectUpstream.timeout(asked: .seconds(60), streaming: true, deadline: deadline) == .seconds(60))
    #expect(ConnectUpstream.timeout(asked: .seconds(86_400), streaming: true, deadline: deadline) == longest)
    #expect(ConnectUpstream.timeout(asked: nil, streaming: false, deadline: deadline) == .seconds(10))
    #expect(ConnectUpstream.timeout(asked: .seconds(99), streaming: false, deadline: deadline) == .seconds(30))
  }
}
