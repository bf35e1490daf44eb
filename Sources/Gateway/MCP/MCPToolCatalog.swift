internal import IntentMeshProtos
internal import ProtoJSON
internal import Synchronization

/// One tool per routed intent of every app, as MCP's `tools/list` gives them: named
/// `<App>_<Intent>` ("UnicornPay_SendPayment"), described from the domain's declaration (what the
/// intent does, each parameter's prompt, whether it needs the user's yes), its `inputSchema` the
/// JSON Schema of the intent's payload (`JSONSchemaOfMessage`), its `outputSchema` what `tools/call`
/// answers (`MCPToolResult`). Built again when the routing table changes (the directory's
/// generation), else kept.
final class MCPToolCatalog: Sendable {
  struct Tool: Sendable {
    let name: String
    let appName: String
    let intentClass: String
    let payloadType: String
    let responseType: String
    /// The tool as `tools/list` lists it.
    let json: JSONValue
  }

  private let directory: DomainDirectory
  private let schema: @Sendable () -> ProtoSchema
  private let built = Mutex<(generation: Int, tools: [Tool])?>(nil)

  init(directory: DomainDirectory, schema: @escaping @Sendable () -> ProtoSchema) {
    self.directory = directory
    self.schema = schema
  }

  /// Every tool, by app and intent.
  var tools: [Tool] {
    let generation = directory.generation
    if let built = built.withLock({ $0 }), built.generation == generation { return built.tools }
    let tools = Self.tools(of: directory.table, schema: schema())
    built.withLock { $0 = (generation, tools) }
    return tools
  }

  func tool(named name: String) -> Tool? { tools.first { $0.name == name } }

  static func tools(of table: RoutingTable, schema: ProtoSchema) -> [Tool] {
    var tools: [Tool] = []
    var names: Set<String> = []
    for route in table.allRoutes.sorted(by: { ($0.appName, $0.intentClass) < ($1.appName, $1.intentClass) }) {
      let declaration = route.declaration
      let name = toolName(app: route.appName, intentClass: route.intentClass)
      // A payload the descriptors do not have cannot be checked or built: no tool for it.
      guard !names.contains(name),
        let input = try? JSONSchemaOfMessage.of(
          declaration.payloadType, in: schema, descriptions: parameterDescriptions(declaration))
      else { continue }
      names.insert(name)
      let json = JSONValue.object([
        ("name", .string(name)),
        ("title", .string("\(spokenName(route.intentClass)) (\(route.appName))")),
        ("description", .string(description(of: route))),
        ("inputSchema", input),
        ("outputSchema", MCPToolResult.outputSchema),
        ("annotations", annotations(of: declaration)),
      ])
      tools.append(
        Tool(
          name: name, appName: route.appName, intentClass: route.intentClass, payloadType: declaration.payloadType,
          responseType: declaration.responseType, json: json))
    }
    return tools
  }

  /// "UnicornPay" and "INSendPaymentIntent" → "UnicornPay_SendPayment": letters, digits, `_`, `-`
  /// and `.` only, as MCP asks of tool names.
  static func toolName(app: String, intentClass: String) -> String {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
    let name = "\(app)_\(shortName(intentClass))".filter { allowed.contains($0) }
    return String(name.prefix(128))
  }

  /// "INSendPaymentIntent" → "SendPayment"; a class without SiriKit's affixes stays as it is.
  static func shortName(_ intentClass: String) -> String {
    var name = Substring(intentClass)
    if name.hasPrefix("IN"), name.dropFirst(2).first?.isUppercase == true { name = name.dropFirst(2) }
    if name.hasSuffix("Intent"), name.count > 6 { name = name.dropLast(6) }
    return String(name)
  }

  /// "SendPayment" → "Send payment".
  static func spokenName(_ intentClass: String) -> String {
    var words = ""
    for character in shortName(intentClass) {
      if character.isUppercase, !words.isEmpty { words.append(" ") }
      words.append(words.isEmpty ? character : Character(character.lowercased()))
    }
    return words
  }

  private static func parameterDescriptions(_ declaration: Intentmesh_V1_IntentDeclaration) -> [String: String] {
    var descriptions: [String: String] = [:]
    for parameter in declaration.parameters where !parameter.keyPath.contains(".") {
      let text = [parameter.label, parameter.prompt].filter { !$0.isEmpty }.joined(separator: ". Asked as: ")
      if !text.isEmpty { descriptions[ProtoSchema.lowerCamel(parameter.keyPath)] = text }
    }
    return descriptions
  }

  private static func description(of route: RoutingTable.Route) -> String {
    let declaration = route.declaration
    var text =
      "SiriKit's \(route.intentClass) in \(route.appName), for the signed-in user: parameters are resolved one by one (a missing or ambiguous one comes back as a question with its options: ask the user, then call again with it filled in), then the app confirms and handles it exactly once."
    if declaration.requiresUserConfirmation || route.restrictedWhileLocked {
      text +=
        " It needs the user's own yes before it acts: the server asks the user (never the model); without a client that can ask, nothing is done."
    }
    let parameters = declaration.parameters.map { parameter in
      parameter.prompt.isEmpty ? parameter.keyPath : "\(parameter.keyPath) (\(parameter.prompt))"
    }
    if !parameters.isEmpty { text += " Parameters: " + parameters.joined(separator: "; ") + "." }
    return text
  }

  private static func annotations(of declaration: Intentmesh_V1_IntentDeclaration) -> JSONValue {
    let reads =
      shortName(declaration.intentClass).hasPrefix("Search") || shortName(declaration.intentClass).hasPrefix("Get")
    return .object([
      ("readOnlyHint", .bool(reads)), ("destructiveHint", .bool(false)), ("idempotentHint", .bool(false)),
      ("openWorldHint", .bool(false)),
    ])
  }
}
