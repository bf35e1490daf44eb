internal import Foundation
internal import Logging
internal import MessagingProtos
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import IntentsKit
internal import SQLKit

/// INGetVisualCodeIntent: "show my code" arrives with an unknown type and resolves to a contact
/// code (the WWDC17 demo); payment and transit codes are not UnicornChat's. The image is a real QR
/// code of the user's contact link, as PNG.
struct GetVisualCodeHandler: IntentHandler {
  typealias Intent = GetVisualCodeIntent
  typealias Response = GetVisualCodeIntentResponse

  static let intentClass = "INGetVisualCodeIntent"
  static let handleHasEffects = false
  static var parameters: [IntentParameter<Self>] {
    [.value("visualCodeType", \.visualCodeType, label: "Code", resolve: Self.resolveVisualCodeType)]
  }

  let store: any IntentStore

  init(store: any IntentStore) {
    self.store = store
  }

  func resolveVisualCodeType(intent: Intent, context: IntentContext) async throws -> ResolutionResult<VisualCodeType> {
    switch intent.visualCodeType {
    case .unspecified, .contact: return .success(.contact)
    case .requestPayment, .sendPayment:
      return .unsupported(
        ResolutionReason(message: "UnicornChat makes contact codes only; payment codes come from a payments app."))
    default:
      return .unsupported(ResolutionReason(message: "UnicornChat makes contact codes only."))
    }
  }

  func confirm(intent: Intent, context: IntentContext) async throws -> Answer {
    let account = try await store.read { try await MessagingAccountRepository.account(of: context.userID, in: $0) }
    return Self.accountAnswer(account) ?? IntentAnswer(code: .ready)
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    let account = try await MessagingAccountRepository.account(of: context.userID, in: database)
    if let refusal = Self.accountAnswer(account) { return refusal }
    guard let account, [.unspecified, .contact].contains(intent.visualCodeType) else {
      return IntentAnswer(code: .failure)
    }
    let code = try QRCode(encoding: account.contactLink)
    let scale = 6
    let side = (code.size + 8) * scale
    var response = Response(code: .success)
    response.visualCodeImage = .with {
      $0.contentType = "image/png"
      $0.data = code.png(scale: scale)
      $0.width = Int32(side)
      $0.height = Int32(side)
    }
    return IntentAnswer(response)
  }

  /// No account: the app must be set up (failureAppConfigurationRequired); signed out: open the app.
  static func accountAnswer(_ account: StoredMessagingAccount?) -> Answer? {
    switch AccountCheck.check(account) {
    case .needsAppLaunch(let activity) where account == nil:
      return IntentAnswer(code: .failureAppConfigurationRequired, userActivity: activity)
    case .needsAppLaunch(let activity): return IntentAnswer(code: .failureRequiringAppLaunch, userActivity: activity)
    case .serviceNotAvailable: return IntentAnswer(code: .failure)
    case .ready: return nil
    }
  }
}
