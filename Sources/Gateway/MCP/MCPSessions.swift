#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import IntentMeshCore
internal import ProtoJSON

/// The MCP sessions the gateway holds: each made by an `initialize`, named by an unguessable
/// `Mcp-Session-Id`, bound to the user whose token made it (another user's token never finds it),
/// with the protocol version and whether its client can ask its user (elicitation). Bounded: at
/// most `maxPerUser` a user and `maxSessions` in all (the least recently used goes first), and a
/// session unused for `idleLimit` is gone. Also where a request of the server's to the client
/// (an elicitation) waits for the client's answer, which comes on another POST: at most
/// `maxWaitingPerSession` at once (a client that never answers holds no more).
actor MCPSessions {
  struct Session: Sendable {
    let user: UserKey
    let version: String
    /// The client declared the `elicitation` capability: it can ask its user a question.
    let elicits: Bool
    fileprivate(set) var lastUsed: ContinuousClock.Instant
  }

  /// What the client answered a request of the server's: its result, or that it answered with an
  /// error, or that no answer came (the session or the request went, or the wait ended).
  enum Answer: Sendable, Equatable {
    case result(JSONValue)
    case error(String)
    case none
  }

  let maxSessions: Int
  let maxPerUser: Int
  /// The most requests of the server's one session may have waiting for the client at once.
  nonisolated let maxWaitingPerSession = 8
  let idleLimit: Duration
  private let clock = ContinuousClock()
  private var sessions: [String: Session] = [:]
  private var waiting: [String: [String: CheckedContinuation<Answer, Never>]] = [:]
  /// Each session's stream of the server's own messages (its GET), with the number it was opened as.
  private var streams: [String: (number: Int, writer: WebAnswerWriter)] = [:]
  private var nextRequest = 0
  private var nextStream = 0

  init(maxSessions: Int = 4096, maxPerUser: Int = 32, idleLimit: Duration = .seconds(3600)) {
    self.maxSessions = maxSessions
    self.maxPerUser = maxPerUser
    self.idleLimit = idleLimit
  }

  var count: Int { sessions.count }

  /// How many requests of the server's wait for session `id`'s client.
  func waitingCount(_ id: String) -> Int { waiting[id]?.count ?? 0 }

  /// A new session for `user`; makes room by closing the user's (or anyone's) least recently used.
  func open(user: UserKey, version: String, elicits: Bool) -> String {
    expire()
    let mine = sessions.filter { $0.value.user == user }
    if mine.count >= maxPerUser, let oldest = mine.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
      close(oldest.key)
    }
    if sessions.count >= maxSessions, let oldest = sessions.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
      close(oldest.key)
    }
    let id = Self.newID()
    sessions[id] = Session(user: user, version: version, elicits: elicits, lastUsed: clock.now)
    return id
  }

  /// `user`'s session `id`, marked used; nil when there is none (or it is another user's).
  func session(_ id: String, user: UserKey) -> Session? {
    expire()
    guard var session = sessions[id], session.user == user else { return nil }
    session.lastUsed = clock.now
    sessions[id] = session
    return session
  }

  /// Ends `user`'s session `id`; false when there is none.
  func end(_ id: String, user: UserKey) -> Bool {
    guard let session = sessions[id], session.user == user else { return false }
    close(id)
    return true
  }

  /// A new id for a request of the server's on session `id`.
  func requestID() -> String {
    nextRequest += 1
    return "intentmesh-\(nextRequest)"
  }

  /// Waits (at most `limit`) for the client's answer to the server's request `requestID` on
  /// session `id`; `.none` when it does not come, the session ends or the task is cancelled.
  func answer(to requestID: String, on id: String, within limit: Duration) async -> Answer {
    guard sessions[id] != nil, waiting[id, default: [:]].count < maxWaitingPerSession else { return .none }
    let timer = Task { [weak self] in
      try? await Task.sleep(for: limit)
      await self?.deliver(.none, to: requestID, on: id)
    }
    defer { timer.cancel() }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        if Task.isCancelled {
          continuation.resume(returning: .none)
        } else {
          waiting[id, default: [:]][requestID] = continuation
        }
      }
    } onCancel: {
      Task { await self.deliver(.none, to: requestID, on: id) }
    }
  }

  /// The client's answer to `requestID` on `user`'s session `id`; false when nothing waits for it.
  func answered(_ requestID: String, on id: String, user: UserKey, with answer: Answer) -> Bool {
    guard let session = sessions[id], session.user == user, waiting[id]?[requestID] != nil else { return false }
    deliver(answer, to: requestID, on: id)
    return true
  }

  private func deliver(_ answer: Answer, to requestID: String, on id: String) {
    guard let continuation = waiting[id]?.removeValue(forKey: requestID) else { return }
    continuation.resume(returning: answer)
  }

  /// `writer` is `user`'s session `id`'s stream of the server's messages from now (one a session:
  /// a stream opened before it ends), its head written here, before any message. Returns its
  /// number, to stop it by; nil when there is no such session (nothing written).
  func listen(_ id: String, user: UserKey, writer: WebAnswerWriter) -> Int? {
    guard let session = sessions[id], session.user == user else { return nil }
    streams[id]?.writer.write(.end)
    writer.write(.head(status: 200, headers: [("content-type", "text/event-stream"), ("cache-control", "no-store")]))
    nextStream += 1
    streams[id] = (nextStream, writer)
    return nextStream
  }

  /// The stream `number` of session `id` is gone (its client closed it).
  func stopListening(_ id: String, number: Int) {
    if streams[id]?.number == number { streams[id] = nil }
  }

  /// Sends `message` on every session's stream; returns how many took it.
  @discardableResult
  func notifyAll(_ message: JSONValue) -> Int {
    let event = MCPSessions.event(message)
    for (_, stream) in streams { stream.writer.write(.body(event)) }
    return streams.count
  }

  /// One server-sent event carrying `message`.
  static func event(_ message: JSONValue) -> [UInt8] {
    Array("event: message\ndata: \(message.text)\n\n".utf8)
  }

  private func close(_ id: String) {
    sessions[id] = nil
    streams.removeValue(forKey: id)?.writer.write(.end)
    for (_, continuation) in waiting.removeValue(forKey: id) ?? [:] { continuation.resume(returning: .none) }
  }

  private func expire() {
    let now = clock.now
    for (id, session) in sessions where now - session.lastUsed > idleLimit { close(id) }
  }

  /// 128 random bits, as hex: visible ASCII, as the transport asks of a session id.
  private static func newID() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<2).map { _ in
      let value = generator.next() as UInt64
      let hex = String(value, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }.joined()
  }
}
