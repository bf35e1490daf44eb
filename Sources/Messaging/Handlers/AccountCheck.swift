internal import Foundation
internal import MessagingProtos
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import IntentsKit

/// The account checks UnicornChat makes in confirm and handle (session 225: users re-authenticate
/// every once in a while, so confirm checks the sign-in).
enum AccountCheck {
  enum Outcome: Sendable, Equatable {
    case ready(StoredMessagingAccount)
    /// No account, or signed out: the app must be opened to sign in.
    case needsAppLaunch(UserActivityDraft)
    /// The user's messaging service is switched off.
    case serviceNotAvailable
  }

  static func check(_ account: StoredMessagingAccount?) -> Outcome {
    guard let account else {
      return .needsAppLaunch(
        UserActivityDraft(userInfo: [
          "error": "noAccount", "message": "Sign up for UnicornChat in the app to send messages.",
        ]))
    }
    guard account.signedIn else {
      return .needsAppLaunch(
        UserActivityDraft(userInfo: [
          "error": "signedOut", "message": "Your UnicornChat session expired. Sign in again in the app.",
        ]))
    }
    guard account.serviceEnabled else { return .serviceNotAvailable }
    return .ready(account)
  }
}

extension AccountCheck.Outcome {
  /// The answer of an intent whose codes include failureRequiringAppLaunch and
  /// failureMessageServiceNotAvailable, when the account is not ready; nil when it is.
  func refusal<R: IntentResponseMessage>(
    appLaunch: R.Code, serviceNotAvailable: R.Code
  ) -> IntentAnswer<R>? {
    switch self {
    case .needsAppLaunch(let activity): IntentAnswer(code: appLaunch, userActivity: activity)
    case .serviceNotAvailable: IntentAnswer(code: serviceNotAvailable)
    case .ready: nil
    }
  }

  /// The account, when it is ready.
  var readyAccount: StoredMessagingAccount? {
    if case .ready(let account) = self { return account }
    return nil
  }
}
