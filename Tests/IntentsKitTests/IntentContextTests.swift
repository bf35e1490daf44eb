@testable import IntentsKit
import Logging
import Synchronization
import Testing

@Suite("What a handler knows of its request")
struct IntentContextTests {
  /// Each message logged, with the logger's metadata at the time.
  final class Lines: Sendable {
    let value = Mutex<[(String, Logger.Metadata)]>([])
  }

  /// Keeps each message in `lines`.
  struct Recorder: LogHandler {
    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
      lines.value.withLock { $0.append(("\(event.message)", metadata)) }
    }
  }

  @Test("a handler's logger carries the request's metadata; a logger put in its place carries none of it")
  func loggerMetadata() {
    let lines = Lines()
    let base = Logger(label: "test") { _ in Recorder(lines: lines) }
    var context = IntentContext(
      userID: "diana", logger: base,
      logMetadata: [(key: "intent-class", value: "INSendMessageIntent"), (key: "request-id", value: "req-9")])
    context.logger.info("sent")
    context.logger = base
    context.logger.info("again")
    let logged = lines.value.withLock { $0 }
    #expect(logged.map(\.0) == ["sent", "again"])
    #expect(logged.first?.1["intent-class"] == "INSendMessageIntent")
    #expect(logged.first?.1["request-id"] == "req-9")
    #expect(logged.last?.1.isEmpty == true)
  }
}
