import Foundation
import GRPCCore
import IntentsKitTesting
@testable import ServiceLauncher
import GRPCNIOTransportHTTP2
import IntentMeshProtos
@testable import ServiceKit
import SwiftProtobuf
import Testing

@Suite("intentmesh up", .serialized)
struct UpCommandTests {
  /// Each domain's app name and IntentsSupported, from Services/*/Manifest/Info.plist.
  static func declaredDomains() throws -> [String: [String]] {
    let services = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Services")
    var domains: [String: [String]] = [:]
    for folder in try FileManager.default.contentsOfDirectory(atPath: services.path) {
      let plist = services.appendingPathComponent("\(folder)/Manifest/Info.plist")
      guard let data = FileManager.default.contents(atPath: plist.path),
        let info = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
        let app = info["CFBundleDisplayName"] as? String,
        let attributes = (info["NSExtension"] as? [String: Any])?["NSExtensionAttributes"] as? [String: Any],
        let intents = attributes["IntentsSupported"] as? [String]
      else { continue }
      domains[app] = intents
    }
    return domains
  }

  @Test("starts every service and the gateway, routes through it, and stops all of them on Ctrl-C")
  func up() async throws {
    let run = try UpRun()
    let (data, process) = (run.data, run.process)
    defer { run.end() }
    try await run.waitFor("Ctrl-C stops everything.")
    let text = process.text
    let gatewayLine = try #require(text.split(separator: "\n").first { $0.contains("gateway ") }, "\(text)")
    let port = try #require(
      gatewayLine.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
    #expect(
      text.contains("messaging-service") && text.contains("payments-service")
        && text.contains("ridebooking-service") && text.contains("notes-service") && text.contains("workouts-service"))

    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
    let routes = try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) {
      client in
      try await Intentmesh_Gateway_V1_Gateway.Client(wrapping: client).listRoutes(.init())
    }
    // Every domain in Services/ — UnicornFit, written in Python, too — with every intent its
    // Info.plist lists: read from the manifests, so adding an intent or a domain changes no test.
    let declared = try Self.declaredDomains()
    #expect(routes.domains.map(\.appName).sorted() == declared.keys.sorted())
    #expect(Set(routes.routes.map(\.intentClass)) == Set(declared.values.flatMap { $0 }))
    #expect(routes.routes.count == declared.values.map(\.count).reduce(0, +))

    // The local identity: a private key only its owner reads, a JWKS every service checks against, and
    // `intentmesh token` signing for any user.
    let keyFile = data.appendingPathComponent("identity/signing-key.pem").path
    let permissions = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
    #expect(permissions == 0o600)
    #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("identity/jwks.json").path))
    let mint = try ChildProcess(
      executable: ServiceProcess.binDirectory.appendingPathComponent("intentmesh"),
      arguments: ["token", "--user", "diana", "--ttl", "10m", "--data", data.path])
    let minted = await mint.exited()
    await mint.outputEnded()
    let token = mint.text.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(minted.status == 0)
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
    #expect(process.terminationStatus == 0, "\(process.text)")
    #expect(process.text.contains("stopped cleanly"), "\(process.text)")
    #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("messaging.sqlite").path))
    #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("payments.sqlite").path))
    let log = try String(contentsOf: data.appendingPathComponent("logs/messaging-service.log"), encoding: .utf8)
    #expect(log.contains("stopped cleanly"))
    // Every user's data, the logs and the keys: the data folder and every folder in it 0700, every
    // file 0600 but the JWKS (public keys) and the Python domain's generated code.
    #expect(Self.openToOthers(in: data) == [])
  }

  /// The files and folders under `folder` that another user could read.
  static func openToOthers(in folder: URL) -> [String] {
    var open: [String] = []
    func mode(_ path: String) -> Int {
      (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
    }
    if mode(folder.path) & 0o077 != 0 { open.append(".") }
    let walker = FileManager.default.enumerator(atPath: folder.path)
    while let relative = walker?.nextObject() as? String {
      guard !relative.hasSuffix("jwks.json") else { continue }
      if mode(folder.appendingPathComponent(relative).path) & 0o077 != 0 {
        open.append("\(relative) \(String(mode(folder.appendingPathComponent(relative).path), radix: 8))")
      }
    }
    return open
  }

  @Test("a domain killed with SIGKILL is started again on its port while the others keep answering")
  func restartsAKilledDomain() async throws {
    let run = try UpRun()
    let (data, process) = (run.data, run.process)
    defer { run.end() }
    try await run.waitFor("Ctrl-C stops everything.")
    let lines = process.text.split(separator: "\n")
    let port = try #require(
      lines.first { $0.contains("gateway ") }?.split(separator: ":").last
        .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
    let messagingAddress = try #require(lines.first { $0.contains("messaging-service ") }?.split(separator: " ").last)
    // Signed with the identity `up` made in its data folder.
    let token = try LocalIssuer.loadOrCreate(in: data.appendingPathComponent("identity"))
      .token(subject: "diana", ttl: .seconds(600))
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
    try await withGRPCClient(transport: transport) { client in
      let extensions = Intentmesh_V1_IntentsExtension.Client(wrapping: client)
      let metadata: Metadata = ["authorization": "Bearer \(token)"]
      func resolve(_ intentClass: String) async throws -> Intentmesh_V1_ResolveResponse {
        try await extensions.resolve(
          .with { $0.intent = .with { $0.intentClass = intentClass } }, metadata: metadata)
      }
      _ = try await resolve("INSearchForMessagesIntent")
      let killed = try #require(await ProcessTable.waitForPid(ofCommandContaining: ["messaging-service", data.path]))
      kill(killed, SIGKILL)
      try await run.waitFor("messaging-service was killed by signal 9 (SIGKILL)")
      // Meanwhile the other domains answer as before.
      #expect(try await resolve("INSearchForAccountsIntent").resolvedIntent.intentClass == "INSearchForAccountsIntent")
      try await run.waitFor("messaging-service is back on \(messagingAddress)")
      // A messaging-service again, not the one killed.
      _ = try #require(
        await ProcessTable.waitForPid(ofCommandContaining: ["messaging-service", data.path], other: killed))
      // Through the same gateway, without restarting it: the gateway reconnects on its own.
      var answered: Intentmesh_V1_ResolveResponse?
      let deadline = ContinuousClock.now + .seconds(20)
      while answered == nil, ContinuousClock.now < deadline {
        answered = try? await resolve("INSearchForMessagesIntent")
        if answered == nil { try await Task.sleep(for: .milliseconds(200)) }
      }
      #expect(answered?.resolvedIntent.intentClass == "INSearchForMessagesIntent")
    }
    let log = try String(contentsOf: data.appendingPathComponent("logs/messaging-service.log"), encoding: .utf8)
    #expect(log.contains("--- restarted by intentmesh up"))
    #expect(log.components(separatedBy: " serving on ").count == 3, "\(log)")

    kill(process.processIdentifier, SIGINT)
    let stopDeadline = ContinuousClock.now + .seconds(30)
    while process.isRunning, ContinuousClock.now < stopDeadline { try await Task.sleep(for: .milliseconds(25)) }
    #expect(process.terminationStatus == 0, "\(process.text)")
    #expect(process.text.contains("stopped cleanly"), "\(process.text)")
  }
}

/// Processes by their command line, from /proc.
enum ProcessTable {
  /// The pids of the processes whose command line contains every one of `parts`.
  static func pids(ofCommandContaining parts: [String]) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry in
      guard let pid = pid_t(entry),
        let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
      else { return nil }
      let command = String(decoding: raw, as: UTF8.self).replacingOccurrences(of: "\u{0}", with: " ")
      return parts.allSatisfy({ command.contains($0) }) ? pid : nil
    }
  }

  /// The pid of a process whose command line contains every one of `parts` and which is not
  /// `other`, looked for again every 50 ms for up to 10 s: one scan of /proc can miss a process
  /// (a listing that fails while other processes come and go reads as empty).
  static func waitForPid(ofCommandContaining parts: [String], other: pid_t? = nil) async -> pid_t? {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
      if let found = pids(ofCommandContaining: parts).first(where: { $0 != other }) { return found }
      try? await Task.sleep(for: .milliseconds(50))
    }
    return nil
  }
}

/// `intentmesh up --port 0` in a data folder of its own, its output collected.
struct UpRun {
  let data = FileManager.default.temporaryDirectory.appendingPathComponent("intentmesh-up-\(UUID().uuidString)")
  let process: ChildProcess

  init() throws {
    process = try ChildProcess(
      executable: ServiceProcess.binDirectory.appendingPathComponent("intentmesh"),
      arguments: ["up", "--port", "0", "--data", data.path])
  }

  /// Waits until `up` has printed `text`; fails the test if it does not in time.
  func waitFor(_ text: String) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while !process.text.contains(text), process.isRunning, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(25))
    }
    try #require(process.text.contains(text), "no \"\(text)\" in:\n\(process.text)")
  }

  /// Kills `up` if a test left it running, and removes its data.
  func end() {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    try? FileManager.default.removeItem(at: data)
  }
}
