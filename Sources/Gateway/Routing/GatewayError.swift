internal import IntentMeshProtos
internal import SwiftProtobuf
internal import GRPCCore
internal import ServiceKit
internal import IntentMeshCore

/// Why the gateway refuses a call before or instead of reaching a domain.
enum GatewayError: Error, Equatable, ExplainedRPCError {
  /// No domain declares the class (SiriKit's noHandlerProvidedForIntent).
  case noRoute(intentClass: String)
  /// Domains declare the class, but none is the named app (SiriKit's noAppAvailable).
  case noSuchApp(appName: String, intentClass: String, apps: [String])
  /// Several apps declare the class and the user named none (intentSupportedByMultipleExtension).
  case ambiguous(intentClass: String, apps: [String])
  /// The intent must not run on a locked device.
  case restrictedWhileLocked(intentClass: String)
  /// The owning domain cannot be reached.
  case domainUnavailable(appName: String, endpoint: String, detail: String)
  /// The request is malformed.
  case invalidArgument(String)
  /// The gateway has no such operation.
  case unsupported(String)

  var rpcErrorCode: RPCError.Code {
    switch self {
    case .noRoute, .noSuchApp: .notFound
    case .ambiguous, .restrictedWhileLocked: .failedPrecondition
    case .domainUnavailable: .unavailable
    case .invalidArgument: .invalidArgument
    case .unsupported: .unimplemented
    }
  }

  var rpcErrorMessage: String {
    switch self {
    case .noRoute(let intentClass):
      intentClass.isEmpty
        ? "intent.intent_class is empty; name a class such as INSendMessageIntent"
        : "no domain handles \(intentClass)"
    case .noSuchApp(let appName, let intentClass, let apps):
      "no app named \"\(appName)\" handles \(intentClass); it is handled by \(apps.joined(separator: ", "))"
    case .ambiguous(let intentClass, let apps):
      "\(intentClass) is supported by more than one app (\(apps.joined(separator: " and "))): name the app"
    case .restrictedWhileLocked(let intentClass):
      "\(intentClass) is restricted while locked: the user must unlock the device first"
    case .domainUnavailable(let appName, let endpoint, let detail):
      "\(appName) (\(endpoint)) is unavailable: \(detail)"
    case .invalidArgument(let message), .unsupported(let message):
      message
    }
  }

  /// The reason in the error's `google.rpc.ErrorInfo` detail.
  var reason: String {
    switch self {
    case .noRoute: "NO_ROUTE"
    case .noSuchApp: "NO_SUCH_APP"
    case .ambiguous: "AMBIGUOUS_APP"
    case .restrictedWhileLocked: "RESTRICTED_WHILE_LOCKED"
    case .domainUnavailable: "DOMAIN_UNAVAILABLE"
    case .invalidArgument: "INVALID_ARGUMENT"
    case .unsupported: "UNSUPPORTED"
    }
  }
}
