import ArgumentParser
import Foundation

/// Every domain service and the gateway as separate processes on loopback, SQLite files in a data
/// folder; a service that dies is started again (`Supervisor`); all stopped cleanly on Ctrl-C.
struct UpCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "up",
    abstract: "Start every domain service and the gateway on this machine, restarting any that dies; Ctrl-C stops them."
  )

  /// The domain executables `up` starts, with their port offset from the gateway's port.
  static let domains: [(product: String, offset: Int, database: String)] = [
    ("messaging-service", 1, "messaging.sqlite"),
    ("payments-service", 2, "payments.sqlite"),
    ("ridebooking-service", 3, "ridebooking.sqlite"),
    ("notes-service", 4, "notes.sqlite"),
  ]

  @Option(help: "Folder for the SQLite files and logs.")
  var data: String = "data"

  @Option(help: "The gateway's port; domains take the next ones. 0 picks free ports for all.")
  var port: Int = 50060

  @Option(help: "Address every service listens on.")
  var host: String = "127.0.0.1"

  func run() async throws {
    let bin = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    let dataURL = URL(fileURLWithPath: data)
    let logs = dataURL.appendingPathComponent("logs")
    try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
    // The local identity provider: its JWKS is what every service checks tokens against.
    _ = try LocalIdentity.issuer(data: data)
    let jwks = ["--jwks", LocalIdentity.jwksPath(data: data)]
    let (signals, sources) = Self.terminationSignals()
    defer { sources.forEach { $0.cancel() } }
    let supervisor = Supervisor()
    do {
      var domainAddresses: [String] = []
      for domain in Self.domains {
        let database = dataURL.appendingPathComponent(domain.database).path
        let spec = ServiceSpec(
          name: domain.product, executable: bin.appendingPathComponent(domain.product),
          arguments: { [host] port in
            ["--host", host, "--port", String(port), "--database", database] + jwks
          },
          log: logs.appendingPathComponent("\(domain.product).log"))
        domainAddresses.append(
          try await Self.start(spec, port: port == 0 ? 0 : port + domain.offset, under: supervisor))
      }
      let domainArguments = domainAddresses.flatMap { ["--domain", $0] }
      let gatewaySpec = ServiceSpec(
        name: "gateway", executable: bin.appendingPathComponent("gateway"),
        arguments: { [host] port in
          ["--host", host, "--port", String(port), "--refresh-seconds", "5"] + domainArguments + jwks
        },
        log: logs.appendingPathComponent("gateway.log"))
      let gatewayAddress = try await Self.start(gatewaySpec, port: port, under: supervisor)
      Terminal.say("IntentMesh is up:")
      Terminal.say("  gateway             \(gatewayAddress)")
      for (domain, address) in zip(Self.domains, domainAddresses) {
        Terminal.say("  \(domain.product.padding(toLength: 19, withPad: " ", startingAt: 0)) \(address)")
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
    let process = try ChildProcess(
      name: spec.name, executable: spec.executable, arguments: spec.arguments(port), log: spec.log)
    let address: String
    do {
      address = try await process.waitUntilServing()
    } catch {
      _ = await process.stop()
      throw error
    }
    // Started again on the port it took, so that the gateway (and clients) find it where it was.
    guard let served = address.split(separator: ":").last.flatMap({ Int($0) }) else {
      _ = await process.stop()
      throw CLIError("\(spec.name) reported an address without a port: \(address)")
    }
    await supervisor.adopt(process, spec: spec, port: served)
    return address
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
