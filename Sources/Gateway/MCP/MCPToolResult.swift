internal import IntentMeshProtos
internal import ProtoJSON
internal import SwiftProtobuf

/// What `tools/call` answers, as text for the model and as structured content: where SiriKit's
/// cycle stopped (`status`), what to ask the user (`prompt`, `parameter`, `options`), the
/// arguments as resolved so far (to call again with), and the app's response once handled.
enum MCPToolResult {
  enum Status: String {
    /// Handled: `response` is the app's answer.
    case done
    /// Confirm or handle answered a failure, or the call was refused (`prompt` says why).
    case failed
    /// A parameter needs a value: ask the user `prompt`, call again with it.
    case needsValue = "needs_value"
    /// A parameter has several matches: ask the user to pick one of `options`.
    case needsChoice = "needs_choice"
    /// A parameter's value was guessed: the user is to say whether it is right.
    case needsValueConfirmed = "needs_value_confirmed"
    /// A value the app cannot take (`prompt` says why): call again with another.
    case unsupportedValue = "unsupported_value"
    /// The intent needs the user's yes and the client cannot ask for it: nothing was done.
    case needsUserConfirmation = "needs_user_confirmation"
    /// The user said no (or did not answer): nothing was done.
    case declined
  }

  static let outputSchema: JSONValue = .object([
    ("type", .string("object")),
    (
      "properties",
      .object([
        ("status", .object([("type", .string("string")), ("enum", .array(allStatuses.map(JSONValue.string)))])),
        ("prompt", .object([("type", .string("string"))])),
        ("parameter", .object([("type", .string("string"))])),
        ("options", .object([("type", .string("array")), ("items", .object([("type", .string("object"))]))])),
        ("arguments", .object([("type", .string("object"))])),
        ("intentIdentifier", .object([("type", .string("string"))])),
        ("response", .object([("type", .string("object"))])),
      ])
    ),
    ("required", .array([.string("status"), .string("prompt")])),
  ])

  private static let allStatuses = [
    Status.done, .failed, .needsValue, .needsChoice, .needsValueConfirmed, .unsupportedValue,
    .needsUserConfirmation, .declined,
  ].map(\.rawValue)

  /// A `tools/call` result: `structured` as structured content and as its text, an error when the
  /// status is a failure.
  static func result(_ status: Status, prompt: String, extra: [(String, JSONValue)] = []) -> JSONValue {
    let structured = JSONValue.object([("status", .string(status.rawValue)), ("prompt", .string(prompt))] + extra)
    return .object([
      ("content", .array([.object([("type", .string("text")), ("text", .string(structured.text))])])),
      ("structuredContent", structured),
      ("isError", .bool(status == .failed)),
    ])
  }

  /// The result of an `Interact` turn that stopped short of the user's yes, or ended; `prompt`
  /// instead of the turn's.
  static func result(
    of turn: Intentmesh_Gateway_V1_InteractResponse, codec: ProtoJSONCodec, prompt: String? = nil
  ) -> JSONValue {
    var extra: [(String, JSONValue)] = []
    if !turn.intent.identifier.isEmpty { extra.append(("intentIdentifier", .string(turn.intent.identifier))) }
    if turn.intent.hasPayload, let arguments = json(of: turn.intent.payload, codec: codec) {
      extra.append(("arguments", arguments))
    }
    let status: Status
    switch turn.stage {
    case .done:
      status = .done
    case .needsParameter:
      extra.append(("parameter", .string(turn.parameter)))
      switch turn.result.kind {
      case .disambiguation(let choice):
        status = .needsChoice
        extra.append(("options", .array(choice.options.map { option($0, codec: codec) })))
      case .confirmationRequired(let guess):
        status = .needsValueConfirmed
        extra.append(("options", .array([option(guess.value, codec: codec)])))
      case .unsupported:
        status = .unsupportedValue
      default:
        status = .needsValue
      }
    case .needsConfirmation:
      status = .needsUserConfirmation
    default:
      status = .failed
    }
    if turn.hasResponse, let bytes: [UInt8] = try? turn.response.serializedBytes(),
      let response = try? codec.decode(bytes, as: "intentmesh.v1.IntentResponse")
    {
      extra.append(("response", response))
    }
    var prompt = prompt ?? turn.prompt
    if prompt.isEmpty, turn.hasResponse {
      prompt = status == .done ? "Done." : "The app answered \(turn.response.codeName)."
    }
    return result(status, prompt: prompt, extra: extra)
  }

  /// A resolved value as an option: its display text and its value as JSON.
  private static func option(_ value: Intentmesh_V1_ResolvedValue, codec: ProtoJSONCodec) -> JSONValue {
    var members: [(String, JSONValue)] = [("displayText", .string(value.displayText))]
    if value.hasValue, let json = json(of: value.value, codec: codec) { members.append(("value", json)) }
    return .object(members)
  }

  /// An `Any`'s message as proto3 JSON, without its `@type`.
  private static func json(of any: Google_Protobuf_Any, codec: ProtoJSONCodec) -> JSONValue? {
    let type = any.typeURL.split(separator: "/").last.map(String.init) ?? ""
    guard let json = try? codec.decode(any.value, as: type) else { return nil }
    return json
  }
}
