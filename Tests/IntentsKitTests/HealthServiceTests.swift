import Foundation
import SwiftProtobuf
import MessagingProtos
import GRPCCore
import IntentMeshProtos
@testable import IntentsKit
import Testing
@testable import ServiceKit

@Suite("Health")
struct HealthServiceTests {
  @Test("Check answers the status, NOT_FOUND for unknown services")
  func check() async throws {
    let board = HealthStatusBoard()
    let service = HealthService(board: board)
    board.set(.serving, for: "")
    let context = ServerContext(
      descriptor: .init(fullyQualifiedService: "grpc.health.v1.Health", method: "Check"), remotePeer: "test",
      localPeer: "test", cancellation: .init())
    #expect(try await service.check(request: .init(), context: context).status == .serving)
    await #expect(throws: RPCError.self) {
      _ = try await service.check(request: .with { $0.service = "nope" }, context: context)
    }
  }

  @Test("Watch streams the current status and each change, and ends at shutdown")
  func watch() async throws {
    let board = HealthStatusBoard()
    board.set(.serving, for: "svc")
    var seen: [HealthStatusBoard.Status] = []
    let updates = board.updates(for: "svc")
    board.set(.notServing, for: "svc")
    board.set(.serving, for: "svc")
    board.finish()
    for await status in updates { seen.append(status) }
    #expect(seen == [.serving, .notServing, .serving])
    var late: [HealthStatusBoard.Status] = []
    for await status in board.updates(for: "svc") { late.append(status) }
    #expect(late == [.serving])
    var unknown: [HealthStatusBoard.Status] = []
    for await status in board.updates(for: "other") { unknown.append(status) }
    #expect(unknown == [.serviceUnknown])
  }
}
