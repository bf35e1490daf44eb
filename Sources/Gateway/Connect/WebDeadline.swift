internal import ServiceKit

/// A web call's deadline, as the relay sets it for gRPC callers: the caller's capped, or the
/// default when it set none; a server stream (a live view) keeps the caller's, up to the longest a
/// web stream stays open.
enum WebDeadline {
  /// The longest a web stream stays open: a live view that wants more opens it again (with a
  /// token that still holds), so that no stream keeps a place, or a user's trust, for ever.
  static let maximumStreamDuration: Duration = .seconds(15 * 60)

  /// The deadline of a call that asked for `asked` (nil: none).
  static func timeout(asked: Duration?, streaming: Bool, deadline: CallDeadline) -> Duration {
    streaming
      ? min(asked ?? maximumStreamDuration, maximumStreamDuration)
      : min(asked ?? deadline.defaultTimeout, deadline.maximumTimeout)
  }
}
