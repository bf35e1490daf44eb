import SwiftProtobuf
import ArgumentParser
import Foundation
import IntentMeshProtos

/// One intent, start to finish, without questions: fails if a parameter needs the user.
struct SendCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "send", abstract: "Send an intent through the gateway: resolve, confirm, handle.")

  @OptionGroup var options: IntentOptions

  @Flag(help: "Say yes when the app asks the user to confirm.")
  var yes = false

  func run() async throws {
    try await GatewayClient.with(options.gateway, token: try options.bearerToken(), tlsCA: options.gatewayCA) {
      session in
      let gateway = session.gateway
      let route = try await session.route(intentClass: options.intentClass, app: options.app)
      var request = try Conversation.firstRequest(options, route: route, codec: try await session.codec(for: route))
      var turn = try await gateway.interact(request)
      if turn.stage == .needsConfirmation, yes {
        request.intent = turn.intent
        request.userConfirmed = true
        request.confirmationToken = turn.confirmationToken
        turn = try await gateway.interact(request)
      }
      Terminal.say(Conversation.describe(turn, declaration: route.declaration))
      if turn.stage != .done { throw ExitCode(2) }
    }
  }
}
