internal import SwiftProtobuf
package import Foundation
internal import IntentMeshProtos
package import Logging

/// Who asks and when: what a handler may know about the request besides the intent.
package struct IntentContext: Sendable {
  /// The user the request acts for, read by `UserIdentity`.
  package var userID: String
  package var locale: String
  package var timeZone: TimeZone
  package var deviceLocked: Bool
  /// The intent's identifier (the exactly-once key of Handle).
  package var intentIdentifier: String
  /// The moment the request is handled, from the service's clock.
  package var now: Date
  /// A logger carrying the request's metadata (intent class, request id). Made when asked for: most
  /// requests log nothing, and attaching metadata to a logger costs allocations on every call.
  package var logger: Logger {
    get {
      var logger = baseLogger
      for (key, value) in logMetadata { logger[metadataKey: key] = "\(value)" }
      return logger
    }
    set {
      baseLogger = newValue
      logMetadata = []
    }
  }
  private var baseLogger: Logger
  private var logMetadata: [(key: String, value: String)]

  package init(
    userID: String,
    locale: String = "en-US",
    timeZone: TimeZone = .gmt,
    deviceLocked: Bool = false,
    intentIdentifier: String = "",
    now: Date = Date(),
    logger: Logger = Logger(label: "intentmesh"),
    logMetadata: [(key: String, value: String)] = []
  ) {
    self.userID = userID
    self.locale = locale
    self.timeZone = timeZone
    self.deviceLocked = deviceLocked
    self.intentIdentifier = intentIdentifier
    self.now = now
    self.baseLogger = logger
    self.logMetadata = logMetadata
  }
}
