import Foundation
@testable import Gateway
import IntentMeshCore
import Synchronization
import ProtoJSON
import Testing

/// MCP sessions without sockets: a session is its user's only, the bounds make room by the least
/// recently used, and a question to the client waits for its answer — or for the session's end,
/// the deadline, or the call's cancellation, never forever.
@Suite("MCP: sessions and the answers they wait for")
struct MCPSessionsTests {
  static let diana = UserKey("diana")
  static let kate = UserKey("kate")

  @Test("a session is found by its user only, and ended by its user only")
  func isolation() async {
    let sessions = MCPSessions()
    let id = await sessions.open(user: Self.diana, version: "2025-11-25", elicits: true)
    #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
    #expect(await sessions.session(id, user: Self.kate) == nil)
    #expect(await sessions.end(id, user: Self.kate) == false)
    #expect(await sessions.session(id, user: Self.diana)?.elicits == true)
    #expect(await sessions.end(id, user: Self.diana))
    #expect(await sessions.session(id, user: Self.diana) == nil)
  }

  @Test("past a user's bound the user's least recently used goes; past the total, anyone's")
  func bounds() async {
    let sessions = MCPSessions(maxSessions: 3, maxPerUser: 2)
    let first = await sessions.open(user: Self.diana, version: "2025-11-25", elicits: false)
    let second = await sessions.open(user: Self.diana, version: "2025-11-25", elicits: false)
    _ = await sessions.session(first, user: Self.diana)  // used: the second is now the oldest
    let third = await sessions.open(user: Self.diana, version: "2025-11-25", elicits: false)
    #expect(await sessions.session(second, user: Self.diana) == nil)
    #expect(await sessions.session(first, user: Self.diana) != nil)
    let kates = await sessions.open(user: Self.kate, version: "2025-11-25", elicits: false)
    let another = await sessions.open(user: Self.kate, version: "2025-11-25", elicits: false)
    #expect(await sessions.count == 3)
    #expect(await sessions.session(third, user: Self.diana) == nil, "the oldest of all went")
    #expect(await sessions.session(kates, user: Self.kate) != nil)
    #expect(await sessions.session(another, user: Self.kate) != nil)
  }

  @Test("an answer reaches the request that waits for it, from its session's user only")
  func answer() async throws {
    let sessions = MCPSessions()
    let id = await sessions.open(user: Self.diana, version: "2025-11-25", elicits: true)
    let request = await sessions.requestID()
    let waiting = Task { await sessions.answer(to: request, on: id, within: .seconds(30)) }
    var delivered = false
    for _ in 0..<200 where !delivered {
      #expect(await sessions.answered(request, on: id, user: Self.kate, with: .result(.bool(true))) == false)
      delivered = await sessions.answered(
        request, on: id, user: Self.diana, with: .result(.object([("action", .string("accept"))])))
      if !delivered { try await Task.sleep(for: .milliseconds(10)) }
    }
    #expect(delivered)
    #expect(await waiting.value == .result(.object([("action", .string("accept"))])))
    #expect(await sessions.answered(request, on: id, user: Self.diana, with: .result(.null)) == false, "answered once")
  }

  @Test("a session holds at most its bound of unanswered requests: past it, no answer at once")
  func waitingBound() async throws {
    let sessions = MCPSessions()
    let id = await sessions.open(user: Self.diana, version: "2025-11-25", elicits: true)
    let bound = sessions.maxWaitingPerSession
    let waiting = (0..<bound).map { index in
      Task { await sessions.answer(to: "q\(index)", on: id, within: .seconds(30)) }
    }
    for _ in 0..<200 where await sessions.waitingCount(id) < bound {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(await sessions.waitingCount(id) == bound)
    #expect(await sessions.answer(to: "one more", on: id, within: .seconds(30)) == .none)
    #expect(await sessions.end(id, user: Self.diana))
    for task in waiting { #expect(await task.value == .none) }
  }

  /// The parts a writer was given, in order.
  final class Parts: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [WebAnswerWriter.Part] = []
    var writer: WebAnswerWriter { WebAnswerWriter { part in self.lock.withLock { self.parts.append(part) } } }
    var texts: [String] {
      lock.withLock {
        parts.map { part in
          switch part {
          case .head(let status, _): "head \(status)"
          case .body(let bytes): String(decoding: bytes, as: UTF8.self)
          case .end: "end"
          }
        }
      }
    }
  }

  @Test("a session's stream: its head first, every notice after it, replaced by the next, ended with the session")
  func streams() async throws {
    let sessions = MCPSessions()
    let id = await sessions.open(user: Self.diana, version: "2025-11-25", elicits: false)
    let first = Parts()
    let second = Parts()
    #expect(await sessions.listen(id, user: Self.kate, writer: first.writer) == nil)
    #expect(first.texts.isEmpty, "nothing written for another user")
    #expect(await sessions.listen(id, user: Self.diana, writer: first.writer) != nil)
    #expect(await sessions.notifyAll(JSONRPCMessage.notification(method: "notifications/tools/list_changed")) == 1)
    #expect(
      first.texts == [
        "head 200", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n",
      ])
    let number = try #require(await sessions.listen(id, user: Self.diana, writer: second.writer))
    #expect(first.texts.last == "end")
    await sessions.stopListening(id, number: number - 1)  // the old one's stop does not stop the new
    #expect(await sessions.notifyAll(.null) == 1)
    #expect(await sessions.end(id, user: Self.diana))
    #expect(second.texts.first == "head 200" && second.texts.last == "end")
    #expect(await sessions.notifyAll(.null) == 0)
  }

  @Test("the watcher tells the streams when the routing table's generation moves, not otherwise")
  func watcher() async throws {
    let sessions = MCPSessions()
    let id = await sessions.open(user: Self.diana, version: "2025-11-25", elicits: false)
    let parts = Parts()
    _ = await sessions.listen(id, user: Self.diana, writer: parts.writer)
    // The generation, and how many times the watcher read it.
    let generation = Mutex((value: 1, reads: 0))
    let watcher = MCPToolListWatcher(
      sessions: sessions,
      generation: {
        generation.withLock {
          $0.reads += 1
          return $0.value
        }
      }, interval: .milliseconds(10))
    let running = Task { try await watcher.run() }
    // Several looks at the same generation (a loaded machine may start the task late): no notice.
    for _ in 0..<1000 where generation.withLock({ $0.reads }) < 3 { try await Task.sleep(for: .milliseconds(10)) }
    #expect(parts.texts == ["head 200"])
    generation.withLock { $0.value = 2 }
    for _ in 0..<1000 where parts.texts.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
    running.cancel()
    #expect(parts.texts.count == 2)
    #expect(parts.texts.last?.contains("notifications/tools/list_changed") == true)
  }

  @Test("no answer: the deadline, the session's end and cancellation each end the wait")
  func noAnswer() async throws {
    let sessions = MCPSessions()
    let id = await sessions.open(user: Self.diana, version: "2025-11-25", elicits: true)
    #expect(await sessions.answer(to: "late", on: id, within: .milliseconds(50)) == .none)
    let ended = Task { await sessions.answer(to: "ended", on: id, within: .seconds(30)) }
    try await Task.sleep(for: .milliseconds(50))
    #expect(await sessions.end(id, user: Self.diana))
    #expect(await ended.value == .none)
    let other = await sessions.open(user: Self.diana, version: "2025-11-25", elicits: true)
    let cancelled = Task { await sessions.answer(to: "cancelled", on: other, within: .seconds(30)) }
    try await Task.sleep(for: .milliseconds(50))
    cancelled.cancel()
    #expect(await cancelled.value == .none)
  }
}

/// JSON-RPC 2.0 messages as MCP sends them, and the tool names the catalog makes.
@Suite("MCP: messages and names")
struct MCPMessageTests {
  @Test("requests, notifications and answers; what is none of them says why, with its id")
  func messages() throws {
    #expect(
      try JSONRPCMessage(body: Array(#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#.utf8))
        == .request(id: .number("7"), method: "tools/list", params: nil))
    #expect(
      try JSONRPCMessage(body: Array(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8))
        == .notification(method: "notifications/initialized", params: nil))
    #expect(
      try JSONRPCMessage(body: Array(#"{"jsonrpc":"2.0","id":"intentmesh-1","result":{"action":"decline"}}"#.utf8))
        == .result(id: .string("intentmesh-1"), result: .object([("action", .string("decline"))])))
    for (body, code) in [
      ("{", -32700), ("[]", -32600), (#"{"id":1,"method":"ping"}"#, -32600),
      (#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, -32600),
      (#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#, -32602),
      (#"{"jsonrpc":"2.0","id":1}"#, -32600),
    ] {
      #expect(throws: JSONRPCError.self, "\(body)") { try JSONRPCMessage(body: Array(body.utf8)) }
      do {
        _ = try JSONRPCMessage(body: Array(body.utf8))
      } catch {
        #expect(error.code == code, "\(body)")
      }
    }
  }

  @Test("tool names from app and intent class: SiriKit's affixes dropped, only the characters MCP allows")
  func names() {
    #expect(MCPToolCatalog.toolName(app: "UnicornPay", intentClass: "INSendPaymentIntent") == "UnicornPay_SendPayment")
    #expect(MCPToolCatalog.toolName(app: "Unicorn Fit!", intentClass: "StartRun") == "UnicornFit_StartRun")
    #expect(MCPToolCatalog.spokenName("INSearchForMessagesIntent") == "Search for messages")
    #expect(MCPToolCatalog.toolName(app: String(repeating: "a", count: 200), intentClass: "X").count == 128)
  }
}
