import Foundation
import ServiceLauncher
import Testing

@Suite("--health-check: the container health check every executable carries", .serialized)
struct HealthCheckFlagTests {
  /// Runs `executable --health-check --port port` and returns its exit status.
  static func probe(_ executable: String, port: Int) throws -> Int32 {
    let process = try ChildProcess(
      executable: ServiceProcess.binDirectory.appendingPathComponent(executable),
      arguments: ["--health-check", "--port", String(port)], output: .nullDevice)
    process.waitUntilExit()
    return process.terminationStatus
  }

  @Test("exit 0 while the service and the gateway serve, 1 once they are gone")
  func probe() async throws {
    let file = TemporaryDatabaseFile("health")
    defer { file.remove() }
    let database = file.path
    let notes = try await ServiceProcess("notes-service", arguments: ["--port", "0", "--database", database])
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(notes.port)"])
    #expect(try Self.probe("notes-service", port: notes.port) == 0)
    #expect(try Self.probe("gateway", port: gateway.port) == 0)
    #expect(try await gateway.stop() == 0)
    #expect(try await notes.stop() == 0)
    #expect(try Self.probe("notes-service", port: notes.port) == 1)
    #expect(try Self.probe("gateway", port: gateway.port) == 1)
  }
}
