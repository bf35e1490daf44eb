@testable import IntentMeshCore
@testable import IntentsKit
import Testing

@Suite("Stored records' identifiers")
struct RecordIdentifierTests {
  @Test("a UUID's text sets the version and variant over the given bits")
  func text() {
    #expect(UUIDText.version4(high: 0, low: 0) == "00000000-0000-4000-8000-000000000000")
    #expect(UUIDText.version4(high: .max, low: .max) == "ffffffff-ffff-4fff-bfff-ffffffffffff")
    #expect(
      UUIDText.version4(high: 0x0123_4567_89ab_cdef, low: 0xfedc_ba98_7654_3210)
        == "01234567-89ab-4def-bedc-ba9876543210")
  }

  @Test("identifiers are version-4 UUIDs and do not repeat, across many refills of the pool")
  func identifiers() {
    let generator = UUIDIdentifierGenerator()
    var seen: Set<String> = []
    // 4,096-byte pool, 16 bytes an id: ~24 refills.
    for _ in 0..<6_000 {
      let id = generator.next()
      let groups = id.split(separator: "-", omittingEmptySubsequences: false)
      #expect(groups.map(\.count) == [8, 4, 4, 4, 12], "\(id)")
      #expect(groups[2].first == "4" && ["8", "9", "a", "b"].contains(groups[3].first), "\(id)")
      seen.insert(id)
    }
    #expect(seen.count == 6_000)
  }

  @Test("a pool hands each 16 bytes out once, refills when used up, and two pools differ")
  func pool() {
    let small = KernelRandomPool(size: 32)
    let draws = (0..<7).map { _ in small.next128() }
    #expect(Set(draws.map { "\($0.high)-\($0.low)" }).count == 7)
    // All-zero draws would mean an unfilled (or zeroed) buffer was handed out: 2^-128 otherwise.
    #expect(draws.allSatisfy { $0.high != 0 || $0.low != 0 })
    let (a, b) = (KernelRandomPool(), KernelRandomPool())
    #expect(a.next128() != b.next128())
  }
}
