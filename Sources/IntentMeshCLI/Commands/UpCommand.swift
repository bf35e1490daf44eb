import ArgumentParser
import Foundation
import IntentMeshCore
import ServiceKit
import ServiceLauncher

/// Every domain service and the gateway as separate processes on loopback, SQLite files in a data
/// folder; a service that dies is started again (`Supervisor`); all stopped cleanly on Ctrl-C.
struct UpCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "up",
    abstract: "Start every domain service and the gateway on this machine, restarting any that dies; Ctrl-C stops them."
  )

  /// The domains `up` starts, with their port offset from the gateway's port: the Swift products
  /// built beside `intentmesh`, and UnicornFit, written in Python, from this checkout's `Services/`.
  static let domains: [DomainLaunch] = [
    DomainLaunch(name: "messaging-service", offset: 1, database: "messaging.sqlite", program: .product),
    DomainLaunch(name: "payments-service", offset: 2, database: "payments.sqlite", program: .product),
    DomainLaunch(name: "ridebooking-service", offset: 3, database: "ridebooking.sqlite", program: .product),
    DomainLaunch(name: "notes-service", offset: 4, database: "notes.sqlite", program: .product),
    DomainLaunch(
      name: "workouts-service", offset: 5, database: "workouts.sqlite",
      program: .script("Services/Workouts/workouts-service")),
  ]

  @Option(help: "Folder for the SQLite files and logs.")
  var data: String = "data"

  @Option(help: "The gateway's port; domains take the next ones. 0 picks free ports for all.")
  var port: Int = 50060

  @Option(help: "Address every service listens on.")
  var host: String = "127.0.0.1"

  @Option(name: .customLong("without"), help: "A domain service not to start, e.g. workouts-service (repeatable).")
  var skipped: [String] = []

  /// Whether `host` is a loopback address: only then may the gateway sign development tokens.
  static func isLoopback(_ host: String) -> Bool { LoopbackHost.contains(host) }

  func run() async throws {
    let bin = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    let dataURL = URL(fileURLWithPath: data)
    let logs = dataURL.appendingPathComponent("logs")
    // The stores, the logs and the identity: this user's only (0700; files 0600).
    try PrivateFiles.directory(dataURL.path, tighteningExisting: true)
    try PrivateFiles.directory(logs.path, tighteningExisting: true)
    // The local identity provider: its JWKS is what every service checks tokens against.
    _ = try LocalIdentity.issuer(data: data)
    let jwks = ["--jwks", LocalIdentity.jwksPath(data: data)]
    let (signals, sources) = Self.terminationSignals()
    defer { sources.forEach { $0.cancel() } }
    // One epoch for every accelerated domain clock of the stack (IntentsKit's AcceleratedClock), so a
    // domain restarted after a crash carries on at the time it had reached rather than going back.
    setenv("INTENTMESH_CLOCK_EPOCH", String(Date().timeIntervalSince1970), 0)
    let supervisor = Supervisor()
    do {
      var started: [(name: String, address: String)] = []
      for domain in Self.domains where !skipped.contains(domain.name) {
        let executable: URL
        switch domain.locate(besides: bin) {
        case .success(let found): executable = found
        case .failure(let problem):
          Terminal.say("\(domain.name) not started: \(problem.message)")
          continue
        }
        let database = dataURL.appendingPathComponent(domain.database).path
        let spec = ServiceSpec(
          name: domain.name, executable: executable,
          arguments: { [host] port in
            ["--host", host, "--port", String(port), "--database", database] + jwks
          },
          log: logs.appendingPathComponent("\(domain.name).log"))
        started.append(
          (domain.name, try await Self.start(spec, port: port == 0 ? 0 : port + domain.offset, under: supervisor)))
      }
      let domainArguments = started.flatMap { ["--domain", $0.address] }
      // A new secret for this run's development tokens: only the address printed below holds it.
      let devSecret = Self.isLoopback(host) ? try DevTokenSecret.renew(in: LocalIdentity.directory(data: data)) : nil
      let gatewaySpec = ServiceSpec(
        name: "gateway", executable: bin.appendingPathComponent("gateway"),
        arguments: { [host] port in
          ["--host", host, "--port", String(port), "--refresh-seconds", "5"] + domainArguments + jwks
            + (Self.isLoopback(host) ? ["--dev-tokens-from", LocalIdentity.directory(data: data).path] : [])
        },
        log: logs.appendingPathComponent("gateway.log"))
      let gatewayAddress = try await Self.start(gatewaySpec, port: port, under: supervisor)
      Terminal.say("IntentMesh is up:")
      Terminal.say("  gateway             \(gatewayAddress)")
      let web = "http://\(gatewayAddress)/"
      Terminal.say("  web app             \(devSecret.map { DevTokenSecret.webAddress(web, secret: $0) } ?? web)")
      for (name, address) in started {
        Terminal.say("  \(name.padding(toLength: 19, withPad: " ", startingAt: 0)) \(address)")
      }
      Terminal.say("  data and logs       \(dataURL.path)")
      Terminal.say("  token signing key   \(LocalIdentity.directory(data: data).path) (`intentmesh token --user NAME`)")
      Terminal.say("A service that dies is started again on its port. Ctrl-C stops everything.")
    } catch {
      await supervisor.stopAll()
      throw error
    }
    Terminal.say(await Self.superviseUntilSignal(supervisor, signals: signals))
    let statuses = await supervisor.stopAll()
    let givenUp = await supervisor.givenUp
    guard givenUp.isEmpty else {
      Terminal.say("stopped; \(givenUp.joined(separator: ", ")) stayed down after crashing (see the logs)")
      throw ExitCode(1)
    }
    Terminal.say(statuses.allSatisfy { $0 == 0 } ? "stopped cleanly" : "stopped; exit statuses \(statuses)")
  }

  /// Starts `spec` on `port` and hands it to `supervisor` once it serves; returns its address.
  static func start(_ spec: ServiceSpec, port: Int, under supervisor: Supervisor) async throws -> String {
    let process = try LaunchedProcess(
      name: spec.name, executable: spec.executable, arguments: spec.arguments(port), log: spec.log)
    let address: ServingLine.Address
    do {
      address = try await process.waitUntilServing()
    } catch {
      await process.stop()
      throw CLIError("\(error)")
    }
    // Started again on the port it took, so that the gateway (and clients) find it where it was.
    await supervisor.adopt(process, spec: spec, port: address.port)
    return address.text
  }

  /// Keeps the services running until SIGINT or SIGTERM; returns what to tell the user.
  static func superviseUntilSignal(_ supervisor: Supervisor, signals: AsyncStream<Int32>) async -> String {
    await withTaskGroup(of: String?.self) { group in
      group.addTask {
        for await number in signals { return number == SIGINT ? "interrupted: stopping" : "terminated: stopping" }
        return "stopping"
      }
      group.addTask {
        await supervisor.watch()
        return nil
      }
      var reason = "stopping"
      while let next = await group.next() {
        guard let said = next else { continue }
        reason = said
        break
      }
      group.cancelAll()
      return reason
    }
  }

  /// SIGINT and SIGTERM as a stream; the default action is turned off so they reach us.
  static func terminationSignals() -> (AsyncStream<Int32>, [any DispatchSourceSignal]) {
    let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
    let sources = [SIGINT, SIGTERM].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { continuation.yield(number) }
      source.resume()
      return source
    }
    return (stream, sources)
  }
}
