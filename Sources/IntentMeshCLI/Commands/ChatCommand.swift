import SwiftProtobuf
import ArgumentParser
import Foundation
import IntentMeshProtos
import ProtoJSON

/// The conversation on a terminal, the way Siri has it: the app's prompts, pick from lists,
/// yes or no, and the final layout as text.
struct ChatCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chat", abstract: "Have the conversation for an intent: answer the app's questions on the terminal.")

  @OptionGroup var options: IntentOptions

  func run() async throws {
    try await GatewayClient.with(options.gateway, token: try options.bearerToken(), tlsCA: options.gatewayCA) {
      session in
      let route = try await session.route(intentClass: options.intentClass, app: options.app)
      let codec = try await session.codec(for: route)
      let request = try Conversation.firstRequest(options, route: route, codec: codec)
      try await Self.converse(session: session, request: request, route: route, codec: codec)
    }
  }

  /// Turns of the conversation from `request` until it is done, failed or cancelled: the app's
  /// questions answered on the terminal. `first`: the answer to `request`, when it was asked already.
  static func converse(
    session: GatewaySession, request: Intentmesh_Gateway_V1_InteractRequest, route: Intentmesh_Gateway_V1_Route,
    codec: ProtoJSONCodec, first: Intentmesh_Gateway_V1_InteractResponse? = nil
  ) async throws {
    let gateway = session.gateway
    let declaration = route.declaration
    var request = request
    var answered = first
    for _ in 0..<50 {
      let turn: Intentmesh_Gateway_V1_InteractResponse
      if let answered {
        turn = answered
      } else {
        turn = try await gateway.interact(request)
      }
      answered = nil
      request.text = ""
      request.intent = turn.intent
      var editor = try PayloadEditor(payloadType: route.payloadType, payload: turn.intent.payload, codec: codec)
      switch turn.stage {
      case .needsParameter:
        let parameter = declaration.parameters.first { $0.keyPath == turn.parameter }
        let index = parameter?.isArray == true ? Int(turn.elementIndex) : nil
        Terminal.say("\(turn.appName): \(turn.prompt)")
        switch turn.result.kind {
        case .disambiguation(let choice):
          for (number, option) in choice.options.enumerated() {
            Terminal.say("  \(number + 1). \(option.displayText)")
          }
          let answer = try Self.ask("choose 1-\(choice.options.count)")
          let picked =
            Int(answer).flatMap { (1...choice.options.count).contains($0) ? choice.options[$0 - 1] : nil }
            ?? choice.options.first { $0.displayText.lowercased() == answer.lowercased() }
          guard let picked else {
            Terminal.say("(\(answer) is not one of the choices)")
            continue
          }
          try editor.set(turn.parameter, option: picked.value, isArray: parameter?.isArray ?? false, index: index)
        case .confirmationRequired:
          if Self.isYes(try Self.ask("yes or no")) {
            request.confirmedParameters.append(turn.parameter)
          } else {
            Terminal.say("\(turn.appName): What should it be instead?")
            try editor.set(turn.parameter, text: try Self.ask(">"), declaration: parameter, index: index)
          }
        case .needsValue:
          try editor.set(turn.parameter, text: try Self.ask(">"), declaration: parameter, replacing: true)
        default:
          try editor.set(turn.parameter, text: try Self.ask("another value"), declaration: parameter, index: index)
        }
        request.intent.payload = try editor.packed()
      case .needsConfirmation:
        if turn.hasLayout { Terminal.say(LayoutPrinter.text(turn.layout, declaration: declaration)) }
        Terminal.say("\(turn.appName): \(turn.prompt)")
        guard Self.isYes(try Self.ask("yes or no")) else {
          Terminal.say("Cancelled.")
          return
        }
        request.userConfirmed = true
        request.confirmationToken = turn.confirmationToken
      default:
        Terminal.say(Conversation.describe(turn, declaration: declaration))
        if turn.stage != .done { throw ExitCode(2) }
        return
      }
    }
    throw CLIError("the conversation did not finish in 50 turns")
  }

  /// Reads one answer; the end of input cancels the conversation.
  static func ask(_ hint: String) throws -> String {
    Terminal.say("[\(hint)] ", terminator: "")
    guard let line = readLine() else {
      Terminal.say("\nCancelled.")
      throw ExitCode(3)
    }
    return line.trimmingCharacters(in: .whitespaces)
  }

  static func isYes(_ answer: String) -> Bool { ["y", "yes", "ok", "sure", "send it"].contains(answer.lowercased()) }
}
