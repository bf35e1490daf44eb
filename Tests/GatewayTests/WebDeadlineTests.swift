import Testing

@testable import Gateway
@testable import ServiceKit

@Suite("Gateway web side: a web call's deadline")
struct WebDeadlineTests {
  @Test("a web stream's deadline: the caller's, never past the longest a web stream stays open")
  func streamDeadline() {
    let longest = WebDeadline.maximumStreamDuration
    #expect(longest == .seconds(900))
    let deadline = CallDeadline(defaultTimeout: .seconds(10), maximumTimeout: .seconds(30))
    #expect(WebDeadline.timeout(asked: nil, streaming: true, deadline: deadline) == longest)
    #expect(WebDeadline.timeout(asked: .seconds(60), streaming: true, deadline: deadline) == .seconds(60))
    #expect(WebDeadline.timeout(asked: .seconds(86_400), streaming: true, deadline: deadline) == longest)
    #expect(WebDeadline.timeout(asked: nil, streaming: false, deadline: deadline) == .seconds(10))
    #expect(WebDeadline.timeout(asked: .seconds(99), streaming: false, deadline: deadline) == .seconds(30))
  }
}
