import IntentMeshProtos
import SwiftProtobuf
import ArgumentParser
import Foundation

/// Every domain service and the gateway as separate processes on loopback, SQLite files in a data
/// folder; stopped cleanly on Ctrl-C.
struct UpCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "up", abstract: "Start every domain service and the gateway on this machine; Ctrl-C stops them.")

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
    var children: [(ChildProcess, String)] = []
    do {
      var domainAddresses: [String] = []
      for domain in Self.domains {
        let child = try ChildProcess(
          name: domain.product, executable: bin.appendingPathComponent(domain.product),
          arguments: [
            "--host", host, "--port", String(port == 0 ? 0 : port + domain.offset),
            "--database", dataURL.appendingPathComponent(domain.database).path,
          ] + jwks,
          log: logs.appendingPathComponent("\(domain.product).log"))
        children.append((child, domain.product))
        domainAddresses.append(try await child.waitUntilServing())
      }
      let gateway = try ChildProcess(
        name: "gateway", executable: bin.appendingPathComponent("gateway"),
        arguments: ["--host", host, "--port", String(port), "--refresh-seconds", "5"]
          + domainAddresses.flatMap { ["--domain", $0] } + jwks,
        log: logs.appendingPathComponent("gateway.log"))
      children.append((gateway, "gateway"))
      let gatewayAddress = try await gateway.waitUntilServing()
      Terminal.say("IntentMesh is up:")
      Terminal.say("  gateway             \(gatewayAddress)")
      for ((_, name), address) in zip(children, domainAddresses) {
        Terminal.say("  \(name.padding(toLength: 19, withPad: " ", startingAt: 0)) \(address)")
      }
      Terminal.say("  data and logs       \(dataURL.path)")
      Terminal.say("  token signing key   \(LocalIdentity.directory(data: data).path) (`intentmesh token --user NAME`)")
      Terminal.say("Ctrl-C stops everything.")
    } catch {
      await Self.stopAll(children)
      throw error
    }
    let reason = await Self.firstEvent(signals: signals, children: children.map(\.0))
    Terminal.say(reason)
    let statuses = await Self.stopAll(children)
    Terminal.say(statuses.allSatisfy { $0 == 0 } ? "stopped cleanly" : "stopped; exit statuses \(statuses)")
  }

  /// Stops the gateway first, then the domains, each waiting for its calls in flight.
  @discardableResult
  static func stopAll(_ children: [(ChildProcess, String)]) async -> [Int32] {
    var statuses: [Int32] = []
    for (child, _) in children.reversed() { statuses.append(await child.stop()) }
    return statuses
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

  /// Waits for a signal or for a child to die on its own.
  static func firstEvent(signals: AsyncStream<Int32>, children: [ChildProcess]) async -> String {
    await withTaskGroup(of: String.self) { group in
      group.addTask {
        for await number in signals { return number == SIGINT ? "interrupted: stopping" : "terminated: stopping" }
        return "stopping"
      }
      group.addTask {
        while !Task.isCancelled {
          if let dead = children.first(where: { !$0.isRunning }) { return "\(dead.name) exited; stopping the rest" }
          try? await Task.sleep(for: .milliseconds(200))
        }
        return "stopping"
      }
      let first = await group.next() ?? "stopping"
      group.cancelAll()
      return first
    }
  }
}

import Synchronization
