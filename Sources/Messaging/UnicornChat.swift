internal import Foundation
internal import Logging
internal import MessagingProtos
internal import IntentMeshProtos
package import IntentsKit

/// UnicornChat, the messaging domain of session 225: its four intents, the chat-transcript view,
/// its schema and demo data.
package enum UnicornChat {
  /// The service's default port.
  package static let defaultPort = 50061

  /// The domain as the runtime runs it; `identifiers` makes message and conversation ids.
  package static func definition(identifiers: any IdentifierGenerator = UUIDIdentifierGenerator()) -> DomainDefinition {
    DomainDefinition(
      serviceName: "messaging-service",
      vocabularyTypes: [.contactName, .contactGroupName],
      migrations: MessagingSchema.migrations,
      seed: MessagingSeed.seed,
      appServiceNames: ["intentmesh.messaging.v1.UnicornChatApp"],
      appServices: { resources in [UnicornChatAppService(store: resources.store, identifiers: identifiers)] }
    ) { resources in
      let store = resources.store
      return IntentRegistry([
        .handler(SendMessageHandler.self, view: AnyIntentViewController(SendMessageViewController())) {
          SendMessageHandler(store: store, identifiers: identifiers)
        },
        .liveHandler(
          SearchForMessagesHandler.self, view: AnyIntentViewController(SearchForMessagesViewController())
        ) { SearchForMessagesHandler(store: store) },
        .handler(SetMessageAttributeHandler.self) { SetMessageAttributeHandler(store: store) },
        .handler(GetVisualCodeHandler.self) { GetVisualCodeHandler(store: store) },
      ])
    }
  }
}
