import IntentsKit
@testable import RideBooking
import Testing

@Suite("Ride option names: the offer a spoken name means")
struct RideOfferMatcherTests {
  static let spoken = [
    "pegasus ride", "a pegasus ride please", "ride", " ride", "rider", "pegasus rider", "pegasus ride ride",
    "pegasus  ride", "the ride pegasus", "", "unicorn", " ride ride ", "pégasus ride", "zoë ride", "ride\u{301}",
    "pegasus ride\u{301}",
  ]

  @Test("\" ride\" comes out as the standard library's replacing takes it out, ASCII or not", arguments: spoken)
  func sameAsReplacing(text: String) {
    #expect(RideOfferMatcher.withoutRideWord(text) == text.replacing(" ride", with: ""))
  }

  @Test("a name with \"ride\" after it, in any case, names the offer; a synonym too")
  func namesWithRide() throws {
    let matcher = RideOfferMatcher(vocabulary: try AppIntentVocabularyPlist.load(inManifest: RideFixture.manifest))
    #expect(matcher.offer(named: "Pegasus ride")?.name == "Pegasus")
    #expect(matcher.offer(named: "PEGASUS RIDE")?.name == "Pegasus")
    #expect(matcher.offer(named: "winged horse ride")?.name == "Pegasus")
    #expect(matcher.offer(named: "dragon ride") == nil)
    #expect(matcher.offer(named: " ride") == nil)
  }
}
