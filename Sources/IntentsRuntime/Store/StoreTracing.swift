internal import IntentsKit
internal import GRPCCore
internal import ServiceKit
internal import Tracing

/// A span for each store transaction (`store write`, `store read`, with `db.system.name`), child of
/// the call's; nothing when tracing is off, in a call the sampler dropped, or outside a call
/// (migrations, maintenance). An error the transaction's body throws as an answer (a refusal with
/// a gRPC status: the business said no) rolls it back without marking the span failed; any other
/// error does.
enum StoreTracing {
  static func span<T>(_ name: String, system: String, _ body: () async throws -> T) async throws -> T {
    guard TraceExport.recordsInsideCall, let parent = ServiceContext.current else { return try await body() }
    let span = InstrumentationSystem.tracer.startSpan(name, context: parent, ofKind: .client)
    span.attributes["db.system.name"] = system
    defer { span.end() }
    do {
      return try await ServiceContext.withValue(span.context) { try await body() }
    } catch {
      if let answer = error as? any RPCErrorConvertible {
        span.addEvent(SpanEvent(name: "rolled back: \(answer.rpcErrorCode)"))
      } else if let answer = error as? RPCError {
        span.addEvent(SpanEvent(name: "rolled back: \(answer.code)"))
      } else {
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: "\(error)"))
      }
      throw error
    }
  }
}
