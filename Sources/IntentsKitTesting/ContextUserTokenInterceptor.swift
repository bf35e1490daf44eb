package import GRPCCore
package import IntentMeshProtos
internal import SwiftProtobuf
package import ServiceKit

/// A request message that names its user, as every intent RPC does.
package protocol NamesRequestUser: Sendable {
  var context: Intentmesh_V1_RequestContext { get }
}

extension Intentmesh_V1_ResolveRequest: NamesRequestUser {}
extension Intentmesh_V1_ConfirmRequest: NamesRequestUser {}
extension Intentmesh_V1_HandleRequest: NamesRequestUser {}
extension Intentmesh_V1_ConfigureViewRequest: NamesRequestUser {}
extension Intentmesh_V1_SetUserVocabularyRequest: NamesRequestUser {}
extension Intentmesh_V1_StartSendingUpdatesRequest: NamesRequestUser {}
extension Intentmesh_Gateway_V1_InteractRequest: NamesRequestUser {}
extension Intentmesh_Gateway_V1_LayoutRequest: NamesRequestUser {}
extension Intentmesh_Gateway_V1_UnderstandRequest: NamesRequestUser {}

/// For tests: signs in as the user each request's `context.user_id` names, with a token of
/// `TestIdentity`, the way a real client sends its user's token. A call that already carries an
/// `authorization` header, or names no user, is sent as it is.
package struct ContextUserTokenInterceptor: ClientInterceptor {
  package init() {}

  package func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingClientRequest<Input>,
    context: ClientContext,
    next: ClientInterceptorNext<Input, Output>
  ) async throws -> StreamingClientResponse<Output> {
    guard request.metadata[stringValues: BearerCredential.metadataKey].first(where: { _ in true }) == nil else {
      return try await next(request, context)
    }
    // The request's messages, buffered so that the first one can be read before the call starts.
    let collector = MessageCollector<Input>()
    try await request.producer(RPCWriter(wrapping: collector))
    let messages = collector.messages
    var request = request
    if let first = messages.first as? any NamesRequestUser {
      let user = first.context.userID.trimmingCharacters(in: .whitespaces)
      if !user.isEmpty {
        request.metadata.addString("Bearer \(TestIdentity.token(for: user))", forKey: "authorization")
      }
    }
    request.producer = { writer in try await writer.write(contentsOf: messages) }
    return try await next(request, context)
  }
}

import Synchronization
import Foundation

/// Keeps what a request producer writes.
final class MessageCollector<Element: Sendable>: RPCWriterProtocol, Sendable {
  private let storage = Mutex<[Element]>([])
  var messages: [Element] { storage.withLock { $0 } }
  func write(_ element: Element) async throws { storage.withLock { $0.append(element) } }
  func write(contentsOf elements: some Sequence<Element>) async throws {
    let array = Array(elements)
    storage.withLock { $0.append(contentsOf: array) }
  }
}

extension Intentmesh_V1_IntentsExtension.Client {
  /// Handle as a client that asked the user does it: Confirm first, then Handle with the
  /// confirmation token Confirm gave (none when the intent needs no yes, or Confirm refused).
  package func confirmAndHandle(_ request: Intentmesh_V1_HandleRequest) async throws -> Intentmesh_V1_HandleResponse {
    let confirmed = try await confirm(
      .with {
        $0.context = request.context
        $0.intent = request.intent
      })
    var request = request
    if request.confirmationToken.isEmpty { request.confirmationToken = confirmed.confirmationToken }
    return try await handle(request)
  }
}
