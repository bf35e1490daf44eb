import SwiftProtobuf
import ArgumentParser
import Foundation
import IntentMeshProtos
import GRPCCore

/// Live updates of an intent in progress (SiriKit's `startSendingUpdates(for:to:)`), laid out as
/// they come, until the intent ends or Ctrl-C.
struct FollowCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "follow",
    abstract: "Follow an intent's live updates through the gateway, e.g. INGetRideStatusIntent.")

  @OptionGroup var options: IntentOptions

  func run() async throws {
    try await GatewayClient.with(options.gateway, token: try options.bearerToken(), tlsCA: options.gatewayCA) {
      session in
      let extensions = session.extensions
      let route = try await session.route(intentClass: options.intentClass, app: options.app)
      guard route.declaration.supportsLiveUpdates else {
        throw CLIError("\(options.intentClass) sends no live updates (\(route.appName) does not declare them)")
      }
      let first = try Conversation.firstRequest(options, route: route, codec: try await session.codec(for: route))
      let count = try await extensions.startSendingUpdates(
        .with {
          $0.context = first.context
          $0.intent = first.intent
        }
      ) { response in
        var count = 0
        var shown: [String] = []
        for try await update in response.messages {
          count += 1
          let layout = try await session.gateway.layout(
            .with {
              $0.context = first.context
              $0.interactions = [update.interaction]
              $0.display = Conversation.display
            })
          let time = Self.clock.string(from: update.interaction.date.date)
          Terminal.say("\(route.appName) [\(time)] update \(count): \(update.response.codeName)")
          // The whole layout first, then only the sections that changed.
          let sections = (layout.layouts.first?.sections ?? []).map { section in
            LayoutPrinter.text(
              .with {
                $0.appName = route.appName; $0.sections = [section]
              }, declaration: route.declaration)
          }
          for section in sections where !shown.contains(section) { Terminal.say(section) }
          shown = sections
        }
        return count
      }
      Terminal.say("\(route.appName): updates ended after \(count)")
    }
  }

  static let clock: DateFormatter = {
    let formatter = DateFormatter()
    formatter.dateFormat = "HH:mm:ss"
    return formatter
  }()
}
