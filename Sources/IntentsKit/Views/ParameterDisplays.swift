package import IntentMeshProtos
internal import SwiftProtobuf
internal import IntentMeshCore

/// The default-view values of parameters: what a host draws for the parameters the app declines.
/// Each message (the intent, the response) is decoded and encoded once per request, however many
/// parameters are read from it.
package struct ParameterDisplays {
  let interaction: Intentmesh_V1_Interaction
  let registration: IntentRegistration
  private var trees: [String: JSONValue?] = [:]
  private var decodedIntent: (any SwiftProtobuf.Message)??

  package init(interaction: Intentmesh_V1_Interaction, registration: IntentRegistration) {
    self.interaction = interaction
    self.registration = registration
  }

  /// Checks that `parameter` names the intent or its response and has a well-formed key path.
  package mutating func validate(_ parameter: Intentmesh_V1_Parameter) throws {
    let segments = try KeyPathReader.parse(parameter.keyPath)
    _ = try tree(for: parameter)
    let type =
      parameter.parameterClass == registration.intentClass ? registration.payloadType : registration.responseType
    if let problem = MessageSchemas.embedded.problem(with: segments, in: type) {
      throw IntentMeshError.invalidArgument(
        "unknown parameter key path \"\(parameter.keyPath)\" of \(parameter.parameterClass): \(problem)")
    }
  }

  /// One display per parameter, read from the interaction's intent or response by key path.
  package mutating func displays(for parameters: [Intentmesh_V1_Parameter]) throws -> [Intentmesh_V1_ParameterDisplay] {
    var displays: [Intentmesh_V1_ParameterDisplay] = []
    var seen = Set<String>()
    for parameter in parameters where seen.insert("\(parameter.parameterClass)#\(parameter.keyPath)").inserted {
      let rootName = parameter.keyPath.split(separator: ".").first.map { String($0.split(separator: "[")[0]) } ?? ""
      let text: String
      if let typed = try typedDisplay(of: parameter) {
        text = typed
      } else {
        text =
          try tree(for: parameter).map { try KeyPathReader.value(at: parameter.keyPath, in: $0) }?.displayText ?? ""
      }
      displays.append(
        .with {
          $0.parameter = parameter
          $0.label = registration.parameters.first { $0.keyPath == rootName }?.label ?? ""
          $0.displayText = text
        })
    }
    return displays
  }

  /// A declared parameter of the intent shows its typed value's text ("Rainbow Savings" for an
  /// account); anything else is read from the message by key path.
  private mutating func typedDisplay(of parameter: Intentmesh_V1_Parameter) throws -> String? {
    guard parameter.parameterClass == registration.intentClass,
      registration.parameters.contains(where: { $0.keyPath == parameter.keyPath })
    else { return nil }
    if decodedIntent == nil {
      decodedIntent = .some(try Self.message(holding: parameter, in: interaction, registration: registration))
    }
    guard let message = decodedIntent ?? nil else { return nil }
    return registration.displayParameter(message, parameter.keyPath)
  }

  private mutating func tree(for parameter: Intentmesh_V1_Parameter) throws -> JSONValue? {
    if let cached = trees[parameter.parameterClass] { return cached }
    let tree = try Self.message(holding: parameter, in: interaction, registration: registration).map(KeyPathReader.tree)
    trees[parameter.parameterClass] = tree
    return tree
  }

  /// The intent payload for the intent class, the response payload for "<class>Response".
  static func message(
    holding parameter: Intentmesh_V1_Parameter,
    in interaction: Intentmesh_V1_Interaction,
    registration: IntentRegistration
  ) throws -> (any SwiftProtobuf.Message)? {
    switch parameter.parameterClass {
    case registration.intentClass:
      return try registration.decodeIntent(interaction.intent.hasPayload ? interaction.intent.payload : nil)
    case registration.intentClass + "Response":
      guard interaction.intentResponse.hasPayload else { return nil }
      do {
        return try registration.decodeResponse(interaction.intentResponse.payload)
      } catch {
        throw IntentMeshError.invalidPayload(
          "interaction.intent_response.payload must be \(registration.responseType): \(error)")
      }
    default:
      throw IntentMeshError.invalidArgument(
        "parameter class \(parameter.parameterClass) is neither \(registration.intentClass) nor \(registration.intentClass)Response"
      )
    }
  }
}
