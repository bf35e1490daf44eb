#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import GRPCCore
internal import IntentMeshProtos
internal import ProtoJSON

/// One `tools/call`: SiriKit's cycle for the token's user, as the gateway's `Interact` runs it
/// (called in process, through the same interceptors as every call: the token is verified there
/// again and names the user). Resolve and confirm; a parameter that needs the user comes back as
/// a question for the model to put to its user. An intent that needs the user's yes is never
/// completed on the model's word: the server asks the user itself (`ask`, an MCP elicitation)
/// and hands the yes on with the confirmation token `Interact` gave, which the model never sees;
/// without a client that can ask, nothing is done. The intent's identifier — the call's
/// idempotency key when it has one — makes handling exactly-once under the client's retries.
struct MCPToolCall {
  typealias Interact =
    @Sendable (Intentmesh_Gateway_V1_InteractRequest, Metadata) async throws -> Intentmesh_Gateway_V1_InteractResponse

  /// How a question to the user ended.
  enum UserAnswer: Equatable {
    case yes
    case no
    /// The client cannot ask its user (no elicitation), or no answer came.
    case unavailable
  }

  let tool: MCPToolCatalog.Tool
  let codec: ProtoJSONCodec
  let interact: Interact
  /// The caller's `authorization` header, for the in-process call.
  let authorization: String
  /// How many times a changed value may be asked about again before the call gives up.
  static let maxConfirmationRounds = 3

  /// Runs the call with `arguments` (the payload as proto3 JSON); `ask` puts a yes-or-no question
  /// to the user.
  func run(
    arguments: JSONValue, idempotencyKey: String?, context: Intentmesh_V1_RequestContext,
    ask: (String) async -> UserAnswer
  ) async -> JSONValue {
    var request = Intentmesh_Gateway_V1_InteractRequest()
    request.context = context
    request.intent.intentClass = tool.intentClass
    request.intent.appName = tool.appName
    request.intent.identifier = idempotencyKey.map { "mcp-\($0)" } ?? UUID().uuidString
    do {
      request.intent.payload = try codec.packed(arguments, as: tool.payloadType)
    } catch {
      return MCPToolResult.result(.failed, prompt: "The arguments are not a \(tool.payloadType): \(error.description)")
    }
    var metadata = Metadata()
    metadata.addString(authorization, forKey: "authorization")
    do {
      var turn = try await interact(request, metadata)
      var rounds = 0
      while turn.stage == .needsConfirmation {
        rounds += 1
        guard rounds <= Self.maxConfirmationRounds else { break }
        switch await ask(turn.prompt) {
        case .yes:
          var next = request
          next.intent = turn.intent
          next.userConfirmed = true
          next.confirmationToken = turn.confirmationToken
          turn = try await interact(next, metadata)
        case .no:
          return MCPToolResult.result(.declined, prompt: "The user said no: nothing was done.")
        case .unavailable:
          return MCPToolResult.result(
            of: turn, codec: codec,
            prompt:
              "\(turn.prompt) Only the user can say yes, and this client cannot ask them (it has no MCP elicitation): nothing was done."
          )
        }
      }
      return MCPToolResult.result(of: turn, codec: codec)
    } catch let error as RPCError {
      return MCPToolResult.result(.failed, prompt: "\(error.code): \(error.message)")
    } catch {
      return MCPToolResult.result(.failed, prompt: "the call failed: \(error)")
    }
  }
}
