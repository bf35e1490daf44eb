import Foundation
import GRPCCore
import IntentsKitTesting
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import SwiftProtobuf
import Testing

@Suite("intentmesh up", .serialized)
struct UpCommandTests {
  @Test("starts every service and the gateway, routes through it, and stops all of them on Ctrl-C")
  func up() async throws {
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("intentmesh-up-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: data) }
    let process = Process()
    process.executableURL = ServiceProcess.binDirectory.appendingPathComponent("intentmesh")
    process.arguments = ["up", "--port", "0", "--data", data.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    let output = OutputBuffer()
    pipe.fileHandleForReading.readabilityHandler = { handle in
      let chunk = handle.availableData
      // At end of file, stop watching (a handler left on a closed pipe can crash libdispatch).
      guard !chunk.isEmpty else {
        handle.readabilityHandler = nil
        return
      }
      output.append(chunk)
    }
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    let deadline = ContinuousClock.now + .seconds(60)
    while !output.text.contains("Ctrl-C stops everything."), process.isRunning, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(25))
    }
    let text = output.text
    let gatewayLine = try #require(text.split(separator: "\n").first { $0.contains("gateway ") }, "\(text)")
    let port = try #require(
      gatewayLine.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
    #expect(
      text.contains("messaging-service") && text.contains("payments-service")
        && text.contains("ridebooking-service") && text.contains("notes-service"))

    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
    let routes = try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) {
      client in
      try await Intentmesh_Gateway_V1_Gateway.Client(wrapping: client).listRoutes(.init())
    }
    #expect(routes.domains.map(\.appName).sorted() == ["UnicornChat", "UnicornNote", "UnicornPay", "UnicornRides"])
    #expect(routes.routes.count == 21)

    // The local identity: a private key only its owner reads, a JWKS every service checks against, and
    // `intentmesh token` signing for any user.
    let keyFile = data.appendingPathComponent("identity/signing-key.pem").path
    let permissions = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
    #expect(permissions == 0o600)
    #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("identity/jwks.json").path))
    let mint = Process()
    mint.executableURL = ServiceProcess.binDirectory.appendingPathComponent("intentmesh")
    mint.arguments = ["token", "--user", "diana", "--ttl", "10m", "--data", data.path]
    let minted = Pipe()
    mint.standardOutput = minted
    try mint.run()
    mint.waitUntilExit()
    let token = String(decoding: minted.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(mint.terminationStatus == 0)
    let search = Intentmesh_V1_ResolveRequest.with {
      $0.intent = .with { $0.intentClass = "INSearchForMessagesIntent" }
    }
    let authenticated = HTTP2ClientTransport.Posix.self
    let answers = try await withGRPCClient(
      transport: try authenticated.init(target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
    ) { client in
      let extensions = Intentmesh_V1_IntentsExtension.Client(wrapping: client)
      let withToken = try await extensions.resolve(search, metadata: ["authorization": "Bearer \(token)"])
      var withoutToken: RPCError?
      do { _ = try await extensions.resolve(search) } catch let error as RPCError { withoutToken = error }
      return (withToken, withoutToken)
    }
    #expect(answers.0.resolvedIntent.intentClass == "INSearchForMessagesIntent")
    #expect(answers.1?.code == .unauthenticated)

    kill(process.processIdentifier, SIGINT)
    let stopDeadline = ContinuousClock.now + .seconds(30)
    while process.isRunning, ContinuousClock.now < stopDeadline { try await Task.sleep(for: .milliseconds(25)) }
    #expect(!process.isRunning)
    #expect(process.terminationStatus == 0, "\(output.text)")
    #expect(output.text.contains("stopped cleanly"), "\(output.text)")
    #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("messaging.sqlite").path))
    #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("payments.sqlite").path))
    let log = try String(contentsOf: data.appendingPathComponent("logs/messaging-service.log"), encoding: .utf8)
    #expect(log.contains("stopped cleanly"))
  }
}
