import Foundation
import IntentMeshProtos
@testable import IntentsKit
import MessagingProtos
import SwiftProtobuf
import Synchronization
import Testing

@Suite("Resolve's handler")
struct ResolveHandlerTests {
  @Test("a Resolve resolves all its parameters with one handler, as SiriKit does; each call makes its own")
  func oneHandlerPerResolve() async throws {
    let made = Mutex(0)
    let registration = IntentRegistration.handler(TestDomain.Handler.self) {
      made.withLock { $0 += 1 }
      return TestDomain.Handler()
    }
    let payload = try Google_Protobuf_Any(
      message: TestDomain.Intent.with {
        $0.recipients = [.with { $0.displayName = "Celestra" }]
        $0.content = "hello"
      })
    let outcome = try await registration.resolve(payload, [], IntentContext(userID: "diana"))
    #expect(outcome.resolutions.map(\.parameter) == ["recipients", "content"])
    #expect(made.withLock { $0 } == 1)
    _ = try await registration.resolve(payload, [], IntentContext(userID: "diana"))
    #expect(made.withLock { $0 } == 2)
  }
}
