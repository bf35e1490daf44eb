/// How people say a domain's intents: per intent, sample utterances with slots that name the
/// payload's parameters, and what kind of value each slot holds — SiriKit's `IntentPhrases` with
/// slots, in the shape of Alexa's interaction model. A domain declares it in
/// `Manifest/InteractionModel.json` beside its Info.plist; it is served in `Describe`, checked at
/// start against the intents' parameters (`InteractionModelCheck`), and compiled by the gateway
/// into what `Understand` matches words against (`UtteranceMatcher`).
package struct InteractionModel: Sendable, Equatable, Codable {
  package var intents: [IntentModel]

  package init(intents: [IntentModel]) {
    self.intents = intents
  }
}

/// One intent's samples and slots.
package struct IntentModel: Sendable, Equatable, Codable {
  /// The intent class, e.g. "INSendMessageIntent".
  package var intent: String
  package var slots: [SlotDeclaration]
  /// Sample utterances: words, `{slot}`s, `[optional words]` and `(alternative|words)`.
  package var samples: [String]

  package init(intent: String, slots: [SlotDeclaration], samples: [String]) {
    self.intent = intent
    self.slots = slots
    self.samples = samples
  }
}

/// A slot: which parameter the words fill, and what kind of value they say.
package struct SlotDeclaration: Sendable, Equatable, Codable {
  /// The parameter's key path, e.g. "recipients".
  package var name: String
  package var kind: SlotKind
  /// For `enum`: the full protobuf name of the enum whose cases the words name, e.g.
  /// "intentmesh.payments.v1.AccountType" (the parameter holds the case's number).
  package var enumType: String?
  /// Where inside the parameter's value the spoken value goes, as a key path of its fields
  /// (e.g. "nickname" of a PaymentAccount, "title" of a TaskList); empty: the value itself.
  package var path: String?
  /// More ways to say an enum case or a vocabulary item, by its name or identifier:
  /// `{"ACCOUNT_TYPE_SAVING": ["savings account", "rainy day fund"]}`.
  package var synonyms: [String: [String]]?

  package init(
    name: String, kind: SlotKind, enumType: String? = nil, path: String? = nil, synonyms: [String: [String]]? = nil
  ) {
    self.name = name
    self.kind = kind
    self.enumType = enumType
    self.path = path
    self.synonyms = synonyms
  }
}

/// What a slot's words say, and so how they are read and where they may go.
package enum SlotKind: String, Sendable, Equatable, Codable, CaseIterable {
  /// A person's name ("Scott", "Sparkle Sparkly"); for an array parameter, names joined by "and"
  /// or commas. The domain resolves it (contacts, nicknames, vocabulary).
  case person
  /// An amount of money ("$25", "twenty five euros"; a bare number in the locale's currency).
  case money
  /// A date, a time or a span of days ("tomorrow at 9", "next Friday", "last week").
  case date
  /// A place by name ("the airport", "Union Square"); the domain resolves it.
  case place
  /// Free text, taken as it was said ("are you ready", a note's title).
  case text
  /// One of the domain's declared vocabulary items for the parameter (ParameterVocabularies), by
  /// one of its phrases.
  case vocabulary
  /// One of an enum's cases, by its name in words ("checking", "miles") or a declared synonym.
  case `enum`
  /// A number ("3", "three", "2.5").
  case number

  /// Kinds whose words say where they end (a value of their own shape): two slots side by side
  /// are allowed when one of them is such a kind.
  /// Kinds a sentence may add where it likes, beside what a sample places ("… tomorrow", "… for 3
  /// people").
  package var isFloating: Bool {
    switch self {
    case .money, .date, .number: true
    case .person, .place, .text, .vocabulary, .enum: false
    }
  }

  /// What a matched slot of the kind is worth to its sample's score (see `UtteranceMatcher`).
  package var typedWeight: Double {
    switch self {
    case .money, .date, .number: 1
    case .enum, .vocabulary: 0.6
    case .person, .place, .text: 0
    }
  }

  package var isSelfDelimiting: Bool {
    switch self {
    case .money, .date, .vocabulary, .enum, .number: true
    case .person, .place, .text: false
    }
  }
}
