internal import Foundation
internal import IntentMeshProtos
internal import MessagingProtos
internal import SwiftProtobuf
internal import IntentsKit

/// A message search followed live: "tell me when Ava writes".
extension SearchForMessagesHandler {
  /// Sends the search's answer as it stands, then, for each message delivered to the user since
  /// (by its arrival number, so any replica's deliveries count), the arrivals that match the
  /// search — each once, in arrival order. Returns only when cancelled (the client stops).
  func startSendingUpdates(
    for intent: Intent, context: IntentContext,
    to send: @escaping @Sendable (Answer) async throws -> Void
  ) async throws {
    let userID = context.userID
    // The watermark is read before the search: a message arriving in between is in both, and is
    // sent once (`answered`), never lost.
    let (watermark, first) = try await store.read { database in
      (
        try await MessageRepository.lastArrival(of: userID, in: database),
        try await handle(intent: intent, context: context, database: database)
      )
    }
    try await send(first)
    guard first.response.code == .success || first.response.code == .failureMessageTooManyResults else { return }
    let answered = Set(first.response.messages.map(\.identifier))
    let interval: (start: Date?, end: Date?) =
      intent.hasDateTimeRange
      ? CalendarDates.interval(of: intent.dateTimeRange, timeZone: context.timeZone, reference: context.now)
      : (nil, nil)
    var seen = watermark
    while true {
      try await Task.sleep(for: arrivalPollInterval)
      let after = seen
      let (last, update): (Int64, Response?) = try await store.read { database in
        guard try await MessageRepository.lastArrival(of: userID, in: database) > after,
          let account = try await MessagingAccountRepository.account(of: userID, in: database)
        else { return (after, nil) }
        let arrivals = try await MessageRepository.arrivals(of: userID, after: after, in: database)
        let last = arrivals.last?.arrival ?? after
        let resolver = try await PersonResolver.load(userID: userID, from: database)
        let filter = MessageFilter(intent: intent, resolver: resolver)
        let matching = arrivals.filter { message in
          !answered.contains(message.id) && filter.matches(message)
            && interval.start.map { message.sentAt >= $0 } ?? true && interval.end.map { message.sentAt <= $0 } ?? true
        }
        guard !matching.isEmpty else { return (last, nil) }
        var response = Response(code: .success)
        response.messages = matching.map { ChatMessage($0, account: account, contacts: resolver.contacts) }
        return (last, response)
      }
      seen = last
      if let update { try await send(IntentAnswer(update)) }
    }
  }
}
