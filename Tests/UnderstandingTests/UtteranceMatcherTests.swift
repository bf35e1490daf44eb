import Foundation
import Testing

@testable import Understanding

/// Sentences matched against small models written here (the domains' own models are checked and
/// evaluated through the gateway): which intent and app, what each slot took, and no candidate
/// for what no model says.
@Suite("Understanding: sentences to candidate intents")
struct UtteranceMatcherTests {
  static let context = UtteranceMatcher.Context(
    now: Date(timeIntervalSince1970: 1_796_134_800), timeZone: TimeZone(identifier: "Europe/Zurich")!,
    locale: "en-US")

  static func intent(
    _ name: String, _ slots: [(String, SlotKind, Bool)], _ samples: [String],
    choices: [String: [CompiledSlot.Choice]] = [:]
  ) throws -> UtteranceMatcher.Intent {
    let declarations = slots.map { SlotDeclaration(name: $0.0, kind: $0.1) }
    return try UtteranceMatcher.Intent(
      model: IntentModel(intent: name, slots: declarations, samples: samples),
      slots: Dictionary(
        uniqueKeysWithValues: zip(slots, declarations).map { slot, declaration in
          (slot.0, CompiledSlot(declaration: declaration, isArray: slot.2, choices: choices[slot.0] ?? []))
        }))
  }

  static let chat = try! UtteranceMatcher.Domain(
    appName: "UnicornChat", alternativeNames: ["Unicorn Chat", "CornChat"],
    intents: [
      intent(
        "INSendMessageIntent", [("recipients", .person, true), ("content", .text, false)],
        [
          "send {recipients} a message [saying|that says] {content}",
          "send (a|an) message to {recipients} saying {content}",
          "send (a|an) message to {recipients}", "send {content} to {recipients}",
        ])
    ])
  static let pay = try! UtteranceMatcher.Domain(
    appName: "UnicornPay", alternativeNames: ["CornPay"],
    intents: [
      intent(
        "INSendPaymentIntent", [("payee", .person, false), ("currencyAmount", .money, false), ("note", .text, false)],
        ["(pay|send) {payee} {currencyAmount} [for {note}]", "(pay|send) {currencyAmount} to {payee} [for {note}]"]),
      intent(
        "INSearchForAccountsIntent", [("accountType", .enum, false)],
        ["(show|check) my {accountType} balance", "(show|check) my balance"],
        choices: [
          "accountType": CompiledSlot.enumChoices(
            caseNames: ["ACCOUNT_TYPE_UNSPECIFIED", "ACCOUNT_TYPE_CHECKING", "ACCOUNT_TYPE_SAVING"],
            synonyms: ["ACCOUNT_TYPE_SAVING": ["rainy day"]])
        ]),
    ])
  /// Another app that sends messages too.
  static let other = try! UtteranceMatcher.Domain(
    appName: "PonyChat", alternativeNames: [],
    intents: [
      intent(
        "INSendMessageIntent", [("recipients", .person, true), ("content", .text, false)],
        ["send {recipients} a message [saying|that says] {content}"])
    ])

  static func best(_ text: String, domains: [UtteranceMatcher.Domain] = [chat, pay], app: String? = nil)
    -> UtteranceMatcher.Match?
  {
    UtteranceMatcher(domains: domains).candidates(text, appName: app, context: context).first
  }

  static func slots(_ match: UtteranceMatcher.Match?) -> [String: UtteranceMatcher.Value] {
    Dictionary(uniqueKeysWithValues: (match?.slots ?? []).map { ($0.name, $0.value) })
  }

  @Test("the seeds' message, with the app named, its slots as typed and where they stand")
  func sendMessage() throws {
    let text = "Send Scott a message on UnicornChat saying are you ready?"
    let match = try #require(Self.best(text))
    #expect((match.appName, match.intentClass) == ("UnicornChat", "INSendMessageIntent"))
    #expect(Self.slots(match) == ["recipients": .people(["Scott"]), "content": .text("are you ready")])
    let content = try #require(match.slots.first { $0.name == "content" })
    #expect(content.text == "are you ready")
    let scalars = Array(text.unicodeScalars)
    #expect(String(String.UnicodeScalarView(scalars[content.start..<content.end])) == "are you ready")
    #expect(match.confidence > 0.85)
  }

  @Test("several recipients; an app named by another name, with a typo, or in front")
  func recipientsAndApps() throws {
    let many = try #require(Self.best("send a message to Scott and Diana saying hi with CornChat"))
    #expect(Self.slots(many)["recipients"] == .people(["Scott", "Diana"]))
    #expect(many.appName == "UnicornChat")
    #expect(try #require(Self.best("send a UnicornChatt message to Scott saying hi")).appName == "UnicornChat")
    #expect(try #require(Self.best("in Unicorn Chat send a message to Scott")).intentClass == "INSendMessageIntent")
  }

  @Test("amounts as said; the amount's slot wins over a message's free text")
  func payments() throws {
    let match = try #require(Self.best("pay Buttercup 85 dollars on UnicornPay for rainbow polish"))
    #expect(match.intentClass == "INSendPaymentIntent")
    #expect(
      Self.slots(match) == [
        "payee": .people(["Buttercup"]),
        "currencyAmount": .money(SpokenAmount(currencyCode: "USD", units: 85, nanos: 0)),
        "note": .text("rainbow polish"),
      ])
    let euros = try #require(Self.best("please send twenty five euros to Buttercup"))
    #expect(euros.intentClass == "INSendPaymentIntent")
    #expect(Self.slots(euros)["currencyAmount"] == .money(SpokenAmount(currencyCode: "EUR", units: 25, nanos: 0)))
    // "send … to …" is a message too, with the amount as its content: the payment ranks first.
    let both = UtteranceMatcher(domains: [Self.chat, Self.pay]).candidates(
      "send $20 to Buttercup", context: Self.context)
    #expect(both.map(\.intentClass) == ["INSendPaymentIntent", "INSendMessageIntent"])
  }

  @Test("enum cases by their name in words, plural, or a synonym")
  func enums() throws {
    #expect(
      Self.slots(Self.best("check my savings balance"))["accountType"]
        == .choice("ACCOUNT_TYPE_SAVING", phrase: "savings"))
    #expect(
      Self.slots(Self.best("show my rainy day balance"))["accountType"]
        == .choice("ACCOUNT_TYPE_SAVING", phrase: "rainy day"))
    #expect(Self.best("show my banana balance")?.slots.isEmpty != false, "no case: not that sample")
  }

  @Test("typos in the sample's words cost confidence, not the match")
  func typos() throws {
    let exact = try #require(Self.best("send a message to Scott saying hi"))
    let typed = try #require(Self.best("sned a mesage to Scott saying hi"))
    #expect(typed.intentClass == "INSendMessageIntent")
    #expect(typed.confidence < exact.confidence && typed.confidence >= UtteranceMatcher.minimumConfidence)
  }

  @Test(
    "text no model says has no candidate",
    arguments: [
      "what's the weather like", "tell me a joke", "set a timer for ten minutes", "send", "hello",
      "play some music", "who is Siri", "what time is it", "turn off the lights", "",
    ])
  func outOfScope(text: String) {
    #expect(
      UtteranceMatcher(domains: [Self.chat, Self.pay]).candidates(text, context: Self.context).isEmpty, "\(text)")
  }

  @Test("two apps that send messages: both candidates without an app name, one with it")
  func twoApps() throws {
    let domains = [Self.chat, Self.other]
    let both = UtteranceMatcher(domains: domains).candidates("send Scott a message saying hi", context: Self.context)
    #expect(Set(both.map(\.appName)) == ["UnicornChat", "PonyChat"])
    #expect(both[0].confidence == both[1].confidence)
    #expect(Self.best("send Scott a message saying hi on PonyChat", domains: domains)?.appName == "PonyChat")
    #expect(
      Self.best("send Scott a message saying hi", domains: domains, app: "unicorn chat")?.appName == "UnicornChat")
    #expect(Self.best("send Scott a message saying hi", domains: domains, app: "NoSuchApp") == nil)
  }
}
