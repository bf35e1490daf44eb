internal import Foundation
internal import Logging
internal import MessagingProtos
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit
internal import IntentMeshCore

/// Matches a spoken group name against the user's groups.
struct GroupNameResolver: Sendable {
  let groups: [MessageGroupRepository.Group]

  init(groups: [MessageGroupRepository.Group]) {
    self.groups = groups
  }

  func resolve(_ name: Intentmesh_V1_SpeakableString) -> ResolutionResult<Intentmesh_V1_SpeakableString> {
    if !name.vocabularyIdentifier.isEmpty, let group = groups.first(where: { $0.id == name.vocabularyIdentifier }) {
      return .success(Self.speakable(group))
    }
    let exact = groups.filter { NameMatching.matches(name.spokenPhrase, $0.name) }
    let partial =
      exact.isEmpty
      ? groups.filter {
        !name.spokenPhrase.isEmpty
          && NameMatching.normalized($0.name).contains(NameMatching.normalized(name.spokenPhrase))
      } : exact
    switch partial.count {
    case 0: return .unsupported(ResolutionReason(message: "You have no UnicornChat group called \(name.spokenPhrase)."))
    case 1: return .success(Self.speakable(partial[0]))
    default: return .disambiguation(partial.map(Self.speakable), prompt: "Which group?")
    }
  }

  static func speakable(_ group: MessageGroupRepository.Group) -> Intentmesh_V1_SpeakableString {
    .with {
      $0.spokenPhrase = group.name
      $0.vocabularyIdentifier = group.id
    }
  }
}
