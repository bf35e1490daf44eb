internal import SwiftProtobuf
internal import IntentMeshProtos

/// What the host asks the user: the domain's words when it gives some, sensible defaults otherwise.
enum Prompts {
  /// The prompt for a parameter's result that needs the user.
  static func prompt(
    for result: Intentmesh_V1_ResolutionResult, parameter: String, declaration: Intentmesh_V1_IntentDeclaration
  ) -> String {
    let declared = declaration.parameters.first { $0.keyPath == parameter }
    let name = humanized(declared?.label.isEmpty == false ? declared!.label : parameter).lowercased()
    switch result.kind {
    case .needsValue(let needs):
      if !needs.prompt.isEmpty { return needs.prompt }
      if let declared, !declared.prompt.isEmpty { return declared.prompt }
      return "What's the \(name)?"
    case .disambiguation(let choice):
      if !choice.prompt.isEmpty { return choice.prompt }
      return "Which \(name)?"
    case .confirmationRequired(let confirm):
      if !confirm.prompt.isEmpty { return confirm.prompt }
      if !confirm.reason.message.isEmpty { return confirm.reason.message }
      return "Did you mean \(confirm.value.displayText)?"
    case .unsupported(let unsupported):
      if !unsupported.reason.message.isEmpty { return unsupported.reason.message }
      return "That \(name) can't be used. Try another."
    default:
      return ""
    }
  }

  /// The question before handle.
  static func confirmation(for declaration: Intentmesh_V1_IntentDeclaration) -> String {
    declaration.confirmationPrompt.isEmpty ? "Do you want to go ahead?" : declaration.confirmationPrompt
  }

  /// What the host says when values the user said yes to changed since: "The from account and
  /// transaction amount changed since you said yes." (`parameters` by key path, in declared order;
  /// none: the request itself).
  static func changed(_ parameters: [String], declaration: Intentmesh_V1_IntentDeclaration) -> String {
    let order = declaration.parameters.map(\.keyPath)
    let sorted = parameters.sorted { (order.firstIndex(of: $0) ?? .max) < (order.firstIndex(of: $1) ?? .max) }
    let names = sorted.map { humanized($0).lowercased() }
    let subject: String
    switch names.count {
    case 0: subject = "request"
    case 1: subject = names[0]
    default: subject = names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }
    return "The \(subject) changed since you said yes."
  }

  /// "speakableGroupName" → "Speakable group name".
  static func humanized(_ keyPath: String) -> String {
    var words: [String] = []
    var current = ""
    for character in keyPath {
      if character.isUppercase, !current.isEmpty {
        words.append(current)
        current = ""
      }
      current.append(character)
    }
    words.append(current)
    let sentence = words.map { $0.lowercased() }.joined(separator: " ")
    return sentence.prefix(1).uppercased() + sentence.dropFirst()
  }
}
