import SwiftProtobuf
import Foundation
import IntentMeshProtos
@testable import IntentsKit
import MessagingProtos
import Testing
@testable import ServiceKit
@testable import IntentMeshCore

@Suite("Values: key paths, display text, dates, names")
struct ValueTests {
  let intent = Intentmesh_Messaging_V1_SendMessageIntent.with {
    $0.recipients = [
      .with { $0.displayName = "Celestra" },
      .with {
        $0.displayName = "Buttercup"; $0.personHandle = .with { $0.value = "buttercup@unicorn.chat" }
      },
    ]
    $0.content = "Are you ready?"
  }

  @Test("reads parameters by key path, with element indexes")
  func keyPaths() throws {
    #expect(try KeyPathReader.value(at: "content", in: intent).displayText == "Are you ready?")
    #expect(try KeyPathReader.value(at: "recipients", in: intent).displayText == "Celestra, Buttercup")
    #expect(try KeyPathReader.value(at: "recipients[1]", in: intent).displayText == "Buttercup")
    #expect(
      try KeyPathReader.value(at: "recipients[1].personHandle.value", in: intent).displayText
        == "buttercup@unicorn.chat")
    #expect(try KeyPathReader.value(at: "recipients[5]", in: intent).isAbsent)
    #expect(try KeyPathReader.value(at: "speakableGroupName", in: intent).isAbsent)
  }

  @Test("rejects malformed key paths", arguments: ["", "a..b", "a[", "a[x]", "a[-1]", "a b"])
  func malformed(path: String) {
    #expect(throws: IntentMeshError.self) { try KeyPathReader.value(at: path, in: intent) }
  }

  @Test(
    "money is exact decimal text",
    arguments: [
      (Int64(85), Int32(0), "85.00"), (85, 500_000_000, "85.50"), (0, 10_000_000, "0.01"),
      (-3, -250_000_000, "-3.25"), (1, 123_456_789, "1.123456789"),
      // Out of google.type.Money's ranges, as a client may send them (scripts/fuzz, key-path, found
      // the first one crashing: nanos of ten digits).
      (12, 1_999_999_999, "13.999999999"), (5, -500_000_000, "4.50"), (-5, 250_000_000, "-4.75"),
      (0, Int32.min, "-2.147483648"), (Int64.max, Int32.max, "9223372036854775807.2147483647"),
      (0, -1, "-0.000000001"), (1_000_000, 120_000_000, "1000000.12"), (-10, 0, "-10.00"),
      (Int64.min, 0, "-9223372036854775808.00"), (Int64.min, Int32.min, "-9223372036854775808.2147483648"),
    ])
  func money(units: Int64, nanos: Int32, text: String) throws {
    #expect(DisplayText.decimal(units: units, nanos: nanos) == text)
    let amount = Intentmesh_V1_CurrencyAmount.with {
      $0.currencyCode = "USD"; $0.units = units; $0.nanos = nanos
    }
    #expect(
      try KeyPathReader.Value(json: JSONValue(JSONSerialization.jsonObject(with: Data(amount.jsonString().utf8))))
        .displayText
        == "\(text) USD")
  }

  @Test("names match case-, accent- and space-insensitively")
  func names() {
    #expect(NameMatching.matches("corn pay", "CornPay"))
    #expect(NameMatching.matches("sparkle sparkly", "Sparkle Sparkly"))
    #expect(NameMatching.matches("Celéstra", "celestra"))
    #expect(!NameMatching.matches("", ""))
    #expect(!NameMatching.matches("Diana", "Diana Prince"))
  }

  @Test("date components become instants in the user's time zone")
  func dates() throws {
    let zurich = try #require(TimeZone(identifier: "Europe/Zurich"))
    let reference = Date(timeIntervalSince1970: 1_779_350_400)  // 2026-05-21 08:00 UTC
    let range = Intentmesh_V1_DateComponentsRange.with {
      $0.startDateComponents = .with {
        $0.year = 2026; $0.month = 5; $0.day = 21
      }
      $0.endDateComponents = .with {
        $0.year = 2026; $0.month = 5; $0.day = 21
      }
    }
    let interval = CalendarDates.interval(of: range, timeZone: zurich, reference: reference)
    // Midnight in Zurich (UTC+2 in May) is 22:00 UTC the day before.
    #expect(interval.start == Date(timeIntervalSince1970: 1_779_314_400))
    #expect(interval.end == Date(timeIntervalSince1970: 1_779_314_400 + 86_399))
    let fivePM = CalendarDates.date(from: .with { $0.hour = 17 }, timeZone: zurich, reference: reference)
    #expect(fivePM == Date(timeIntervalSince1970: 1_779_375_600))
    let month = CalendarDates.date(
      from: .with {
        $0.year = 2026; $0.month = 2
      }, timeZone: .gmt, reference: reference, end: true)
    #expect(month == Date(timeIntervalSince1970: 1_772_323_199))  // 2026-02-28 23:59:59 UTC
  }

  @Test("a range given by its start only, in whole days or months, is that day or month; with a time it stays open")
  func startOnlyRanges() throws {
    let zurich = try #require(TimeZone(identifier: "Europe/Zurich"))
    let reference = Date(timeIntervalSince1970: 1_779_350_400)  // 2026-05-21 08:00 UTC
    let day = CalendarDates.interval(
      of: .with {
        $0.startDateComponents = .with {
          $0.year = 2026; $0.month = 5; $0.day = 22
        }
      }, timeZone: zurich,
      reference: reference)
    #expect(day.start == Date(timeIntervalSince1970: 1_779_314_400 + 86_400))
    #expect(day.end == Date(timeIntervalSince1970: 1_779_314_400 + 2 * 86_400 - 1))
    let month = CalendarDates.interval(
      of: .with {
        $0.startDateComponents = .with {
          $0.year = 2026; $0.month = 2
        }
      }, timeZone: .gmt,
      reference: reference)
    #expect(month.start == Date(timeIntervalSince1970: 1_769_904_000))  // 2026-02-01 00:00 UTC
    #expect(month.end == Date(timeIntervalSince1970: 1_772_323_199))  // 2026-02-28 23:59:59 UTC
    let fromFivePM = CalendarDates.interval(
      of: .with {
        $0.startDateComponents = .with {
          $0.year = 2026; $0.month = 5; $0.day = 22; $0.hour = 17
        }
      },
      timeZone: zurich, reference: reference)
    #expect(fromFivePM.start != nil && fromFivePM.end == nil)
  }

  @Test("user vocabulary keeps order, drops duplicates and strings over 1024 UTF-16 units")
  func vocabulary() {
    let request = Intentmesh_V1_SetUserVocabularyRequest.with {
      $0.strings = ["Sparkle Sparkly", "sparkle sparkly", String(repeating: "a", count: 1025), "  ", "Celestra"]
      $0.speakables = [
        .with {
          $0.spokenPhrase = "Buttercup"; $0.vocabularyIdentifier = "buttercup"
        }
      ]
    }
    let (kept, discarded) = UserVocabulary.entries(of: request)
    #expect(kept.map(\.phrase) == ["Sparkle Sparkly", "Celestra", "Buttercup"])
    #expect(kept[2].vocabularyIdentifier == "buttercup")
    #expect(discarded == 2)
  }

  @Test("request ids: a client's usable id is kept, anything else replaced")
  func requestIDs() {
    #expect(RequestID.accept("abc-123") == "abc-123")
    #expect(RequestID.accept("has space") != "has space")
    #expect(RequestID.accept(String(repeating: "x", count: 129)).count == 36)
    #expect(RequestID.accept(nil).count == 36)
  }
}
