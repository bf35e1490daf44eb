import GRPCCore
import Testing

/// Expects `call` to fail with `code`, its message holding each of `texts`.
func expectStatus(
  _ code: RPCError.Code, containing texts: [String], sourceLocation: SourceLocation = #_sourceLocation,
  _ call: () async throws -> Void
) async {
  do {
    try await call()
    Issue.record("expected \(code)", sourceLocation: sourceLocation)
  } catch let error as RPCError {
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    for text in texts { #expect(error.message.contains(text), "\(error.message)", sourceLocation: sourceLocation) }
  } catch {
    Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
  }
}
