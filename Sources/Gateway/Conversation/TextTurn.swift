internal import IntentMeshProtos
internal import SwiftProtobuf

/// The first turn of a conversation that starts from words: the intent Understand's best
/// candidate says, or an answer without one — nothing any app does (NOT_UNDERSTOOD), or an intent
/// several apps do equally well and no app named (NEEDS_APP: "Which app?", with the choices).
enum TextTurn {
  enum Choice {
    case intent(Intentmesh_Gateway_V1_Candidate)
    case answer(Intentmesh_Gateway_V1_InteractResponse)
  }

  static func choose(_ candidates: [Intentmesh_Gateway_V1_Candidate], appName: String) -> Choice {
    guard let best = candidates.first else {
      return .answer(
        .with {
          $0.stage = .notUnderstood
          $0.prompt = "Sorry, I can't help with that. Try saying what you want to do and in which app."
        })
    }
    let tied = candidates.filter {
      $0.intent.intentClass == best.intent.intentClass && abs($0.confidence - best.confidence) < 0.001
    }
    let apps = tied.map(\.intent.appName)
    if appName.isEmpty, Set(apps).count > 1 {
      return .answer(
        .with {
          $0.stage = .needsApp
          $0.candidates = tied
          $0.prompt = "Which app? \(Self.list(apps))"
        })
    }
    return .intent(best)
  }

  /// "A or B", "A, B or C".
  static func list(_ names: [String]) -> String {
    guard names.count > 1 else { return names.first ?? "" }
    return names.dropLast().joined(separator: ", ") + " or " + names.last!
  }
}
