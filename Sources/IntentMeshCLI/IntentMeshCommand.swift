import ArgumentParser
import Foundation

/// `intentmesh`: run IntentMesh on this machine and talk to it.
@main
struct IntentMeshCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "intentmesh",
    abstract: "SiriKit's intent model on your own servers: run the services and send them intents.",
    subcommands: [
      UpCommand.self, TokenCommand.self, AskCommand.self, SendCommand.self, ChatCommand.self, FollowCommand.self,
      RoutesCommand.self,
    ]
  )
}
