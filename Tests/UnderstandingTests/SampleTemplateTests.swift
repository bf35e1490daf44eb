import Testing

@testable import Understanding

/// Sample utterances parsed and expanded, and the words and typos they are matched with.
@Suite("Understanding: samples, words and typos")
struct SampleTemplateTests {
  static func forms(_ sample: String) throws -> [String] {
    try SampleTemplate(sample).patterns.map(SampleTemplate.render).sorted()
  }

  @Test("optional words and alternatives expand into every sentence they stand for")
  func expansion() throws {
    #expect(
      try Self.forms("send {recipients} a message [saying|that says] {content}")
        == [
          "send {recipients} a message saying {content}", "send {recipients} a message that says {content}",
          "send {recipients} a message {content}",
        ].sorted())
    #expect(try Self.forms("(pay|send) {payee}") == ["(pay|send) {payee}"], "one-word alternatives stay one word")
    #expect(try Self.forms("pay [my|the] bill") == ["pay [my|the] bill"])
    #expect(try Self.forms("Pay, Buttercup!") == ["pay buttercup"], "as the user's words are read")
    #expect(try SampleTemplate("[show] my messages [from {senders}]").slots == ["senders"])
  }

  @Test(
    "samples that are not: unbalanced groups, only slots, a slot twice, empty alternatives, too many forms",
    arguments: [
      "send (a|an message", "send a] message", "{content}", "[please] {content}", "tell {a} and {a}",
      "send (|a) message", "{bad name}", "send {recipients", "send recipients}",
      "(a b|c) (a b|c) (a b|c) (a b|c) (a b|c) (a b|c) (a b|c) (a b|c) (a b|c) x",
    ])
  func failures(sample: String) {
    #expect(throws: SampleTemplate.Failure.self) { _ = try SampleTemplate(sample) }
  }

  @Test("words of a sentence: lowercase, punctuation apart, offsets in code points as typed")
  func utterance() throws {
    let utterance = Utterance("Send Ünïcorn’s note: “hi”, please!")
    #expect(utterance.words.map(\.text) == ["send", "ünïcorn's", "note", ":", "hi", "please"], "a colon is a word")
    #expect(utterance.original(1..<2) == "Ünïcorn’s")
    #expect(utterance.words[4].start == 22 && utterance.words[4].end == 24)
    #expect(try Self.forms("cancel (it|the (bicorn|car))") == ["cancel it", "cancel the (bicorn|car)"])
    #expect(Utterance("pay $25.50 today.").words.map(\.text) == ["pay", "$25.50", "today"])
  }

  @Test("a typo is tolerated in words of four letters or more, two in words of eight or more; short words exactly")
  func typos() {
    #expect(FuzzyWord.match("message", "message") == 1)
    #expect(FuzzyWord.match("mesage", "message") == 0.8)
    #expect(FuzzyWord.match("mesasge", "message") == 0.8, "two letters swapped")
    #expect(FuzzyWord.match("messge", "message") == 0.8)
    #expect(FuzzyWord.match("unicrnchta", "unicornchat") == 0.65)
    #expect(FuzzyWord.match("go", "to") == nil)
    #expect(FuzzyWord.match("sned", "send") == 0.8)
    // Words beyond ASCII are compared by their characters, as ASCII ones are by their bytes.
    #expect(FuzzyWord.match("zurich", "zürich") == 0.8)
    #expect(FuzzyWord.match("zürihc", "zürich") == 0.8, "two letters swapped")
    #expect(FuzzyWord.match("cafe\u{301}s", "cafés") == 1, "the same characters, composed otherwise")
    #expect(FuzzyWord.match("strasse", "straße") == nil, "two edits in a word of six")
    #expect(FuzzyWord.distance(Array("kitten".utf8), Array("sitting".utf8), limit: 3) == 3)
    #expect(FuzzyWord.distance(Array("kitten"), Array("sitting"), limit: 2) == nil)
    #expect(FuzzyWord.match("snd", "send") == 0.8)
    #expect(FuzzyWord.match("bill", "bull") == 0.8)
    #expect(FuzzyWord.match("pay", "say") == nil)
    #expect(FuzzyWord.match("massages", "message") == nil)
  }
}
