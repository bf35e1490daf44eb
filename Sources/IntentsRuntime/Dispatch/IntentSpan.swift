internal import IntentsKit
internal import GRPCCore
internal import Logging
internal import ServiceKit
internal import Tracing

/// One Resolve, Confirm, Handle or ConfigureView of an intent, observed: with tracing on, a span
/// named "Method IntentClass" (child of the call's server span) with `intentmesh.intent_class` and
/// `intentmesh.outcome` (Resolve: complete / incomplete; Confirm and Handle: the response code,
/// "(replayed)" for a Handle answered from the ledger; an error: its status code); at debug level,
/// a log line "Method IntentClass: outcome" (carrying the trace id when tracing is on).
enum IntentSpan {
  static func run<T>(
    _ name: String, intentClass: String, logger: Logger, outcome: (T) -> String, _ body: () async throws -> T
  ) async throws -> T {
    func observed(_ span: (any Span)?) async throws -> T {
      span?.attributes["intentmesh.intent_class"] = intentClass
      do {
        let value = try await body()
        finished(outcome(value))
        return value
      } catch let error as RPCError {
        finished("\(error.code)")
        throw error
      }
      func finished(_ outcome: String) {
        span?.attributes["intentmesh.outcome"] = outcome
        logger.debug("\(name): \(outcome)")
      }
    }
    guard TraceExport.recordsInsideCall else { return try await observed(nil) }
    return try await withSpan(name, ofKind: .internal) { span in try await observed(span) }
  }
}
