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
    try await GatewayClient.with(options.gateway) { gateway, _ in
      let route = try await GatewayClient.route(gateway, intentClass: options.intentClass, app: options.app)
      var editor = try PayloadEditor(payloadType: route.payloadType, payload: nil)
      for (key, value) in try options.pairs() {
        try editor.set(key, text: value, declaration: route.declaration.parameters.first { $0.keyPath == key })
      }
      var request = Intentmesh_Gateway_V1_InteractRequest.with {
        $0.context = Conversation.context(options)
        $0.intent = .with {
          $0.intentClass = options.intentClass
          $0.appName = options.app
        }
        $0.display = Conversation.display
      }
      request.intent.payload = try editor.packed()
      var turn = try await gateway.interact(request)
      if turn.stage == .needsConfirmation, yes {
        request.intent = turn.intent
        request.userConfirmed = true
        turn = try await gateway.interact(request)
      }
      Terminal.say(Conversation.describe(turn, declaration: route.declaration))
      if turn.stage != .done { throw ExitCode(2) }
    }
  }
}
