package import IntentsKit

/// Reading a resolution result in a test: the value or reason of the kind it is, nil otherwise.
extension ResolutionResult {
  package var successValue: Value? {
    if case .success(let value) = self { return value }
    return nil
  }

  package var unsupportedReason: ResolutionReason? {
    if case .unsupported(let reason) = self { return reason }
    return nil
  }

  package var disambiguationOptions: [Value]? {
    if case .disambiguation(let options, _) = self { return options }
    return nil
  }

  package var needsValuePrompt: String? {
    if case .needsValue(let prompt) = self { return prompt }
    return nil
  }

  package var isNotRequired: Bool {
    if case .notRequired = self { return true }
    return false
  }
}
