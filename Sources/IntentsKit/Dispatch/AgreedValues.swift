/// What the user agrees to when asked for a yes: each declared parameter's value in its agreed
/// form (`ParameterValue.agreedForm`), in declared order, and the whole intent with those forms
/// written in (the fields no parameter declares included). A confirmation token binds each part
/// on its own, so that a refused yes can say which parameter changed.
package struct AgreedValues: Sendable, Equatable {
  /// One parameter's agreed bytes, by key path.
  package struct Part: Sendable, Equatable {
    package let name: String
    package let bytes: [UInt8]

    package init(name: String, bytes: [UInt8]) {
      self.name = name
      self.bytes = bytes
    }
  }

  package let parameters: [Part]
  /// The intent in its agreed form, encoded deterministically.
  package let whole: [UInt8]

  package init(parameters: [Part], whole: [UInt8]) {
    self.parameters = parameters
    self.whole = whole
  }
}
