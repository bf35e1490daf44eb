/// The bytes of large first messages — larger than half a stream window, so too large for the
/// relay to hold while it routes — that the gateway's server holds, bounded for each client
/// connection and for each event loop (its share of the process's budget). The relay routes such a
/// message to the gateway's server, which takes it whole before it answers (and routes it by its
/// intent), so each one costs up to `--max-message-bytes` of memory for as long as its call runs:
/// without a bound, one client opening many such calls holds as many messages as it has streams.
/// A call reserves its message's announced length in both budgets as it is routed, or is refused
/// (RESOURCE_EXHAUSTED) when either is full, and gives it back when it ends (`Reservation`).
/// Used only on its event loop.
final class LargeRequestBudget {
  /// Which of the two budgets was full.
  enum Scope: Equatable, Sendable {
    case connection(limit: Int)
    case process(limit: Int)

    /// Its refusals' code in `intentmesh_relay_events_total{event="call_refused"}`.
    var eventCode: String {
      switch self {
      case .connection: "LARGE_REQUESTS_CONNECTION"
      case .process: "LARGE_REQUESTS_PROCESS"
      }
    }
  }

  let limit: Int
  /// Bytes reserved by calls still running.
  private(set) var reserved = 0

  init(limit: Int) {
    self.limit = limit
  }

  /// A reservation of `bytes` in `connection`'s budget and `loop`'s (one of `loops` sharing the
  /// process's), or the budget that had no room for them. A budget holding nothing takes any one
  /// message, so a limit below `--max-message-bytes` never refuses every large call.
  static func reserve(_ bytes: Int, connection: LargeRequestBudget, loop: LargeRequestBudget, loops: Int)
    -> Result<Reservation, Refused>
  {
    guard connection.hasRoom(for: bytes) else { return .failure(Refused(scope: .connection(limit: connection.limit))) }
    guard loop.hasRoom(for: bytes) else { return .failure(Refused(scope: .process(limit: loop.limit * loops))) }
    return .success(Reservation(bytes: bytes, budgets: [connection, loop]))
  }

  private func hasRoom(for bytes: Int) -> Bool { reserved == 0 || reserved + bytes <= limit }

  /// Neither budget had room.
  struct Refused: Error, Equatable {
    let scope: Scope
  }

  /// Bytes held in both budgets until `release()`, or until it is dropped.
  final class Reservation {
    let bytes: Int
    private var budgets: [LargeRequestBudget]

    fileprivate init(bytes: Int, budgets: [LargeRequestBudget]) {
      self.bytes = bytes
      self.budgets = budgets
      for budget in budgets { budget.reserved += bytes }
    }

    /// Gives the bytes back (once; later calls do nothing).
    func release() {
      for budget in budgets { budget.reserved -= bytes }
      budgets = []
    }

    deinit { release() }
  }
}
