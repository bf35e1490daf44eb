package import IntentsKit
internal import SwiftProtobuf
package import Foundation
internal import IntentMeshProtos
package import Logging
internal import ServiceKit
internal import IntentMeshCore

/// The checks every intent RPC makes before a handler runs, in SiriKit's order: who the user is,
/// which handler owns the class, whether the device must be unlocked.
package struct RequestScope: Sendable {
  package let registry: IntentRegistry
  package let manifest: DomainManifest
  package let now: @Sendable () -> Date
  package let logger: Logger

  package init(registry: IntentRegistry, manifest: DomainManifest, now: @escaping @Sendable () -> Date, logger: Logger)
  {
    self.registry = registry
    self.manifest = manifest
    self.now = now
    self.logger = logger
  }

  /// The registration of `intent` and the handler's view of the request.
  func enter(
    _ requestContext: Intentmesh_V1_RequestContext, intentClass: String, identifier: String
  ) throws -> (IntentRegistration, IntentContext) {
    let userID = try UserIdentity.userID(of: requestContext)
    let registration = try registry.registration(for: intentClass)
    if requestContext.deviceLocked, manifest.restrictedWhileLocked.contains(intentClass) {
      throw IntentMeshError.restrictedWhileLocked(intentClass: intentClass)
    }
    var timeZone = TimeZone.gmt
    if !requestContext.timeZone.isEmpty {
      guard let zone = TimeZone(identifier: requestContext.timeZone) else {
        throw IntentMeshError.invalidArgument(
          "context.time_zone \"\(requestContext.timeZone)\" is not an IANA time zone")
      }
      timeZone = zone
    }
    var logMetadata = [(key: "intent-class", value: intentClass)]
    if let requestID = RequestID.current { logMetadata.append((key: "request-id", value: "\(requestID)")) }
    let context = IntentContext(
      userID: userID,
      locale: requestContext.locale.isEmpty ? "en-US" : requestContext.locale,
      timeZone: timeZone,
      deviceLocked: requestContext.deviceLocked,
      intentIdentifier: identifier,
      now: now(),
      logger: logger,
      logMetadata: logMetadata
    )
    return (registration, context)
  }
}
