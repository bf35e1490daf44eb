@testable import IntentsKit
import Logging
import Synchronization
import Testing

@Suite("What a handler knows of its request")
struct IntentContextTests {
  @Test("a handler's logger carries the request's metadata; a logger put in its place carries none of it")
  func loggerMetadata() {
    let captured = UnexpectedErrorInterceptorTests.Captured()
    let base = Logger(label: "test") { _ in UnexpectedErrorInterceptorTests.CapturingHandler(captured: captured) }
    var context = IntentContext(
      userID: "diana", logger: base,
      logMetadata: [(key: "intent-class", value: "INSendMessageIntent"), (key: "request-id", value: "req-9")])
    context.logger.info("sent")
    context.logger = base
    context.logger.info("again")
    let logged = captured.lines.withLock { $0 }
    #expect(logged.map(\.1) == ["sent", "again"])
    #expect(logged.first?.2["intent-class"] == "INSendMessageIntent")
    #expect(logged.first?.2["request-id"] == "req-9")
    #expect(logged.last?.2.isEmpty == true)
  }
}
