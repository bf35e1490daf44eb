internal import NIOCore

/// How long the relay waits before it connects again to an upstream that told it to calm down
/// (GOAWAY ENHANCE_YOUR_CALM): one second after the first time, twice as long after each next one,
/// at most `maximum`; forgotten once the upstream has been calm for `forgetAfter`. Calls to the
/// upstream meanwhile wait in the connection still to be made (their deadlines still run), so a
/// domain that sheds load is not met at once by a new connection with the same load.
struct UpstreamBackoff {
  static let initial = TimeAmount.seconds(1)
  static let maximum = TimeAmount.seconds(30)
  static let forgetAfter = TimeAmount.seconds(120)

  private var delay = TimeAmount.zero
  private var lastCalmDown: NIODeadline?
  /// Until when no new connection is made.
  private(set) var until: NIODeadline?

  /// The upstream answered ENHANCE_YOUR_CALM at `now`: returns how long to wait before connecting again.
  mutating func calmDown(now: NIODeadline) -> TimeAmount {
    if let last = lastCalmDown, now - last > Self.forgetAfter { delay = .zero }
    delay = delay == .zero ? Self.initial : min(delay * 2, Self.maximum)
    lastCalmDown = now
    until = now + delay
    return delay
  }

  /// How long a connection made at `now` waits before connecting; zero when it need not.
  func wait(now: NIODeadline) -> TimeAmount {
    guard let until, until > now else { return .zero }
    return until - now
  }
}
