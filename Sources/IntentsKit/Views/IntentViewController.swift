package import IntentMeshProtos
package import SwiftProtobuf
internal import IntentMeshCore

/// What the app answers for one step of the view sequence: SiriKit's completion
/// `(success, configuredParameters, desiredSize)` plus the declarative view it draws.
package struct ViewConfiguration: Sendable {
  package var configured: Bool
  package var parameters: [Intentmesh_V1_Parameter]
  package var desiredSize: Intentmesh_V1_Size
  package var view: Intentmesh_V1_View?

  /// The app draws `parameters` with `view` at `desiredSize`.
  package static func drawn(
    _ parameters: [Intentmesh_V1_Parameter], view: Intentmesh_V1_View, width: Double, height: Double
  ) -> ViewConfiguration {
    ViewConfiguration(
      configured: true, parameters: parameters,
      desiredSize: .with {
        $0.width = width; $0.height = height
      }, view: view)
  }

  /// The app declines: the host draws its default view of the asked parameters.
  package static let declined = ViewConfiguration(configured: false, parameters: [], desiredSize: .init(), view: nil)
}

/// One step of the sequence as the app sees it (`configureView(for:of:interactiveBehavior:context:)`).
package struct ViewRequest<Intent: SwiftProtobuf.Message, Response: IntentResponseMessage>: Sendable {
  /// The parameters asked for; empty on the first call.
  package var parameters: [Intentmesh_V1_Parameter]
  package var intent: Intent
  /// The response, once confirm or handle has answered.
  package var response: Response?
  package var status: Intentmesh_V1_IntentHandlingStatus
  package var interactiveBehavior: Intentmesh_V1_InteractiveBehavior
  package var hostedViewContext: Intentmesh_V1_HostedViewContext
  package var minimumSize: Intentmesh_V1_Size
  package var maximumSize: Intentmesh_V1_Size
  package var context: IntentContext

  /// True while the intent has not been carried out (unspecified, ready, in progress): a draft.
  package var isDraft: Bool {
    switch status {
    case .unspecified, .ready, .inProgress, .userConfirmationRequired: true
    default: false
    }
  }

  /// Whether the step asks for `keyPath` (of the intent class or its response class).
  package func asks(_ keyPath: String) -> Bool {
    parameters.contains { $0.keyPath == keyPath || $0.keyPath.hasPrefix(keyPath + "[") }
  }
}

/// The Intents UI side of a domain for one intent class (SiriKit's `INUIHostedViewControlling`).
package protocol IntentViewController: Sendable {
  associatedtype Intent: SwiftProtobuf.Message & Sendable
  associatedtype Response: IntentResponseMessage
  static var intentClass: String { get }
  /// The parameters in the order the host asks for them after the empty set; empty means the
  /// intent's parameters in their declared order.
  static var parameterOrder: [Intentmesh_V1_Parameter] { get }
  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration
}

extension IntentViewController {
  package static var parameterOrder: [Intentmesh_V1_Parameter] { [] }
}

/// An `IntentViewController` with its types erased.
package struct AnyIntentViewController: Sendable {
  /// The controller's view order; empty for the intent's declared order.
  package let parameterOrder: [Intentmesh_V1_Parameter]
  package let configure:
    @Sendable (
      Intentmesh_V1_ConfigureViewRequest, Intentmesh_V1_Interaction, IntentContext
    ) async throws -> ViewConfiguration

  package init<C: IntentViewController>(_ controller: C) {
    self.parameterOrder = C.parameterOrder
    self.configure = { request, interaction, context in
      let intent = try IntentPayload.decode(
        C.Intent.self, from: interaction.intent.hasPayload ? interaction.intent.payload : nil,
        intentClass: C.intentClass)
      var response: C.Response?
      if interaction.hasIntentResponse, interaction.intentResponse.hasPayload {
        do {
          response = try C.Response(unpackingAny: interaction.intentResponse.payload)
        } catch {
          throw IntentMeshError.invalidPayload(
            "interaction.intent_response.payload must be \(C.Response.protoMessageName): \(error)")
        }
      }
      return try await controller.configureView(
        ViewRequest(
          parameters: request.parameters, intent: intent, response: response,
          status: interaction.intentHandlingStatus, interactiveBehavior: request.interactiveBehavior,
          hostedViewContext: request.hostedViewContext, minimumSize: request.minimumSize,
          maximumSize: request.maximumSize, context: context))
    }
  }
}
