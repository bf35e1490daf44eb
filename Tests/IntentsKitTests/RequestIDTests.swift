@testable import ServiceKit
import Testing

@Suite("Request ids")
struct RequestIDTests {
  @Test("new ids have the shape of a random UUID and do not repeat")
  func newIDs() {
    var seen: Set<String> = []
    for _ in 0..<100_000 {
      let id = UUIDStringGenerator.shared.next()
      let groups = id.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
      #expect(groups.map(\.count) == [8, 4, 4, 4, 12], "\(id)")
      #expect(id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || $0 == 0x2D }, "\(id)")
      #expect(groups[2].first == "4", "version 4: \(id)")
      #expect(["8", "9", "a", "b"].contains(groups[3].first), "RFC 4122 variant: \(id)")
      seen.insert(id)
    }
    #expect(seen.count == 100_000)
  }

  @Test("two generators seeded apart give different ids")
  func seeds() {
    #expect(UUIDStringGenerator().next() != UUIDStringGenerator().next())
  }

  @Test("a client's printable id is kept; an empty, long or non-ASCII one is replaced")
  func accepting() {
    #expect(RequestID.accept("req-42") == "req-42")
    #expect(RequestID.accept(String(repeating: "a", count: 128)) == String(repeating: "a", count: 128))
    for bad in [nil, "", "has space", "naïve", String(repeating: "a", count: 129), "tab\there"] {
      let id = RequestID.accept(bad)
      #expect(id != bad)
      #expect(id.utf8.count == 36)
    }
  }
}
