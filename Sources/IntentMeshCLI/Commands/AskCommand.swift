import ArgumentParser
import Foundation
import IntentMeshProtos
import SwiftProtobuf

/// The conversation from words, the way a person starts it with Siri: "send Scott a message on
/// UnicornChat saying hi". The gateway understands the sentence (which app, which intent, the
/// values as said), asks "Which app?" when two could do it, then the conversation goes on on the
/// terminal as `intentmesh chat` has it.
struct AskCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ask",
    abstract: "Say what you want in words: the gateway understands it, then asks what it still needs.",
    discussion: """
      intentmesh ask "send Scott a message on UnicornChat saying are you ready"
      intentmesh ask pay Buttercup 85 dollars for rainbow polish
      """)

  @Argument(help: "What you want, in words (quoted, or as several arguments).")
  var words: [String]

  @Option(help: "The app to ask (its name or an alternative name), when the words name none.")
  var app: String = ""

  @OptionGroup var connection: ConnectionOptions

  func run() async throws {
    let text = words.joined(separator: " ")
    try await GatewayClient.with(connection.gateway, token: try connection.bearerToken(), tlsCA: connection.gatewayCA) {
      session in
      var request = Intentmesh_Gateway_V1_InteractRequest.with {
        $0.context = Conversation.context(connection)
        $0.text = text
        $0.intent = .with { $0.appName = app }
        $0.display = Conversation.display
      }
      var turn = try await session.gateway.interact(request)
      switch turn.stage {
      case .notUnderstood:
        Terminal.say(turn.prompt)
        throw ExitCode(2)
      case .needsApp:
        Terminal.say(turn.prompt)
        let apps = turn.candidates.map(\.intent.appName)
        for (number, name) in apps.enumerated() { Terminal.say("  \(number + 1). \(name)") }
        let answer = try ChatCommand.ask("choose 1-\(apps.count)")
        guard
          let picked = Int(answer).flatMap({ (1...apps.count).contains($0) ? apps[$0 - 1] : nil })
            ?? apps.first(where: { $0.lowercased() == answer.lowercased() })
        else {
          Terminal.say("(\(answer) is not one of the apps)")
          throw ExitCode(2)
        }
        request.intent.appName = picked
        turn = try await session.gateway.interact(request)
      default:
        break
      }
      if let understood = turn.candidates.first {
        let said = understood.slots.map { "\($0.name) \"\($0.text)\"" }.joined(separator: ", ")
        Terminal.say(
          "(\(understood.intent.appName): \(understood.intent.intentClass)\(said.isEmpty ? "" : " — \(said)"))")
      }
      let route = try await session.route(intentClass: turn.intent.intentClass, app: turn.appName)
      let codec = try await session.codec(for: route)
      request.text = ""
      try await ChatCommand.converse(session: session, request: request, route: route, codec: codec, first: turn)
    }
  }
}
