internal import Foundation
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import IntentsKit

/// The checks every UnicornPay confirm and handle start with (session 217: service available,
/// signed in, sufficient balance): is there a profile, is the user signed in with verified
/// credentials, are the terms accepted, is the user eligible.
enum ProfileCheck {
  enum Outcome: Sendable, Equatable {
    case ready(StoredPaymentProfile)
    /// No UnicornPay profile: the app must be opened to sign up.
    case noProfile
    /// Signed out or credentials not verified.
    case credentialsUnverified
    case termsAcceptanceRequired
    case notEligible
  }

  static func check(_ profile: StoredPaymentProfile?) -> Outcome {
    guard let profile else { return .noProfile }
    guard profile.signedIn, profile.credentialsVerified else { return .credentialsUnverified }
    guard profile.termsAccepted else { return .termsAcceptanceRequired }
    guard profile.eligible else { return .notEligible }
    return .ready(profile)
  }
}

extension ProfileCheck.Outcome {
  /// The codes an intent's response has for the refusals; nil entries fall back to
  /// failureRequiringAppLaunch, which every payments response has.
  struct Codes<Code: Sendable>: Sendable {
    var appLaunch: Code
    var credentialsUnverified: Code
    var termsAcceptanceRequired: Code?
    var notEligible: Code?

    init(appLaunch: Code, credentialsUnverified: Code, termsAcceptanceRequired: Code?, notEligible: Code?) {
      self.appLaunch = appLaunch
      self.credentialsUnverified = credentialsUnverified
      self.termsAcceptanceRequired = termsAcceptanceRequired
      self.notEligible = notEligible
    }
  }

  /// The answer when the profile cannot go ahead; nil when it can.
  func refusal<R: IntentResponseMessage>(_ codes: Codes<R.Code>) -> IntentAnswer<R>? {
    switch self {
    case .ready: return nil
    case .noProfile:
      return IntentAnswer(
        code: codes.appLaunch,
        userActivity: UserActivityDraft(userInfo: [
          "error": "noProfile", "message": "Sign up for UnicornPay in the app first.",
        ]))
    case .credentialsUnverified:
      return IntentAnswer(
        code: codes.credentialsUnverified,
        userActivity: UserActivityDraft(userInfo: [
          "error": "credentialsUnverified", "message": "Sign in to UnicornPay again in the app.",
        ]))
    case .termsAcceptanceRequired:
      return IntentAnswer(
        code: codes.termsAcceptanceRequired ?? codes.appLaunch,
        userActivity: UserActivityDraft(userInfo: [
          "error": "termsAcceptanceRequired", "message": "Accept UnicornPay's new terms in the app.",
        ]))
    case .notEligible:
      return IntentAnswer(
        code: codes.notEligible ?? codes.appLaunch,
        userActivity: UserActivityDraft(userInfo: [
          "error": "notEligible", "message": "Your UnicornPay account cannot make this payment.",
        ]))
    }
  }

  var readyProfile: StoredPaymentProfile? {
    if case .ready(let profile) = self { return profile }
    return nil
  }
}
