internal import IntentMeshCore
internal import Synchronization

/// How many web calls the gateway answers at once, and how many of them one user may hold: every
/// Connect or gRPC-Web call holds a stream on a connection the gateway shares, and a live-update
/// stream holds it for as long as its client stays. Without a share per user, one user's streams
/// could take every place from everyone else. Users are the verified token's subject, byte for byte
/// (`UserKey`); calls without a token that verifies share the anonymous user's places.
final class WebCallBudget: Sendable {
  let total: Int
  let perUser: Int
  let streamsPerUser: Int

  private struct Held {
    var calls = 0
    var streams = 0
  }
  private struct State {
    var calls = 0
    var users: [UserKey: Held] = [:]
  }
  private let state = Mutex(State())

  init(total: Int = 512, perUser: Int = 64, streamsPerUser: Int = 16) {
    precondition(total > 0 && perUser > 0 && streamsPerUser > 0)
    self.total = total
    self.perUser = perUser
    self.streamsPerUser = streamsPerUser
  }

  /// Why a call was not given a place.
  enum Refusal: Equatable, Error {
    case gatewayFull(total: Int)
    case userFull(perUser: Int)
    case userStreamsFull(streamsPerUser: Int)

    var message: String {
      switch self {
      case .gatewayFull(let total): "the gateway has \(total) web calls in progress; try again"
      case .userFull(let perUser): "this user has \(perUser) web calls in progress; wait for one to end"
      case .userStreamsFull(let streams):
        "this user has \(streams) web streams open; close one (each live view holds one) before opening another"
      }
    }
  }

  /// A place for a call of `user` (a stream when `streaming`), held until `release`.
  func acquire(user: UserKey, streaming: Bool) throws(Refusal) {
    try state.withLock { (state) throws(Refusal) in
      var held = state.users[user] ?? Held()
      guard state.calls < total else { throw .gatewayFull(total: total) }
      guard held.calls < perUser else { throw .userFull(perUser: perUser) }
      guard !streaming || held.streams < streamsPerUser else { throw .userStreamsFull(streamsPerUser: streamsPerUser) }
      state.calls += 1
      held.calls += 1
      if streaming { held.streams += 1 }
      state.users[user] = held
    }
  }

  /// Gives back the place `acquire` gave.
  func release(user: UserKey, streaming: Bool) {
    state.withLock { state in
      state.calls -= 1
      guard var held = state.users[user] else { return }
      held.calls -= 1
      if streaming { held.streams -= 1 }
      state.users[user] = held.calls == 0 ? nil : held
    }
  }

  /// Calls in progress, all users together, and `user`'s (for tests and metrics).
  func inFlight(user: UserKey? = nil) -> (calls: Int, streams: Int) {
    state.withLock { state in
      guard let user else { return (state.calls, state.users.values.reduce(0) { $0 + $1.streams }) }
      let held = state.users[user] ?? Held()
      return (held.calls, held.streams)
    }
  }
}
