import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
@testable import Gateway
import IntentMeshProtos
import IntentsKitTesting
@testable import IntentsKit
import SwiftProtobuf
import Synchronization
import Testing

/// The relay in front of the gateway (every TestGateway test goes through it); here what only a
/// relay can get wrong: flow control with messages larger than a window, bursts of resets, and an
/// upstream that goes away mid-stream.
@Suite("Gateway relay: HTTP/2 streams to the domains", .serialized)
struct RelayTests {
  typealias Harness = TestGateway

  static func big(_ bytes: Int) throws -> Intentmesh_V1_Intent {
    var payload = Google_Protobuf_BytesValue()
    payload.value = Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    return try Harness.intent("INBigIntent", payload: payload)
  }

  @Test("a 1 MiB request and a 1 MiB answer cross the relay intact (larger than any flow-control window)")
  func largeMessages() async throws {
    let big = FakeDomain(appName: "BigApp", intents: ["INBigIntent"])
    try await Harness.run(fakes: [big]) { harness in
      for size in [1 << 20, 3 << 20] {
        let intent = try Self.big(size)
        let answer = try await harness.extensionClient.resolve(
          .with {
            $0.context = Harness.context; $0.intent = intent
          })
        // The fake answers with the intent it got: the bytes went there and back.
        let echoed = try Google_Protobuf_BytesValue(unpackingAny: answer.resolvedIntent.payload)
        let sent = try Google_Protobuf_BytesValue(unpackingAny: intent.payload)
        #expect(echoed.value.count == size)
        #expect(echoed.value == sent.value)
      }
      #expect(big.seen.calls == ["Resolve", "Resolve"])
    }
  }

  /// Opens `count` live-update streams on `client` that stay open until cancelled; once three in
  /// four have their first update (some are still opening), cancels them all.
  static func openAndReset(
    _ count: Int, on client: Intentmesh_V1_IntentsExtension.Client<HTTP2ClientTransport.Posix>, round: Int,
    counting opened: Counter
  ) async {
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<count {
        group.addTask {
          try? await client.startSendingUpdates(
            .with {
              $0.context = Harness.context
              $0.intent = try! Harness.intent("INHornIntent", identifier: "endless")
            }
          ) { response in
            for try await _ in response.messages {
              opened.value.add(1, ordering: .relaxed)
              try await Task.sleep(for: .seconds(60))  // stays open until cancelled
            }
          }
        }
      }
      do {
        try await waitUntil("\(count * 3 / 4) of round \(round)'s streams are open", every: .milliseconds(5)) {
          opened.value.load(ordering: .relaxed) >= count * 3 / 4
        }
      } catch {
        Issue.record(error, "\(opened.value.load(ordering: .relaxed)) streams opened")
      }
      group.cancelAll()
    }
  }

  @Test(
    "thousands of live streams reset by their clients, round after round: upstream streams end, the relay keeps answering"
  )
  func resetStorm() async throws {
    let horn = FakeDomain(appName: "HornChat", intents: ["INHornIntent"])
    try await Harness.run(fakes: [horn]) { harness in
      let perRound = 400
      let rounds = 5
      for round in 0..<rounds {
        let opened = Counter()
        // Each round on a connection of its own: a client that resets hundreds of streams spends
        // the relay's rapid-reset budget (200 per 30 s) and gets GOAWAY ENHANCE_YOUR_CALM, and a
        // stream the next round opened on that connection before the GOAWAY reached it would be
        // refused (it happened: a round that opened none).
        let transport = try HTTP2ClientTransport.Posix(
          target: .ipv4(address: "127.0.0.1", port: harness.port), transportSecurity: .plaintext)
        try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) { grpc in
          let client = Intentmesh_V1_IntentsExtension.Client(wrapping: grpc)
          await Self.openAndReset(perRound, on: client, round: round, counting: opened)
        }
        // Every upstream stream the relay opened is cancelled at the domain.
        let expected = (round + 1) * perRound
        for _ in 0..<500 where horn.seen.calls.filter({ $0 == "StartSendingUpdates cancelled" }).count < expected {
          try await Task.sleep(for: .milliseconds(10))
        }
        let started = horn.seen.calls.filter { $0 == "StartSendingUpdates" }.count
        let cancelled = horn.seen.calls.filter { $0 == "StartSendingUpdates cancelled" }.count
        #expect(cancelled == started, "round \(round): \(started) streams reached the domain, \(cancelled) ended")
      }
      // New calls on fresh connections (spread over the relay's event loops) are answered.
      for _ in 0..<8 {
        let transport = try HTTP2ClientTransport.Posix(
          target: .ipv4(address: "127.0.0.1", port: harness.port), transportSecurity: .plaintext)
        try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) { grpc in
          let client = Intentmesh_V1_IntentsExtension.Client(wrapping: grpc)
          var options = CallOptions.defaults
          options.timeout = .seconds(5)
          let answer = try await client.resolve(
            .with {
              $0.context = Harness.context; $0.intent = try Harness.intent("INHornIntent")
            }, options: options)
          #expect(answer.complete)
        }
      }
    }
  }

  @Test("a domain that goes away mid-stream ends the client's stream with UNAVAILABLE, not a hang")
  func upstreamLostMidStream() async throws {
    let horn = FakeDomain(appName: "HornChat", intents: ["INHornIntent"])
    try await Harness.run(fakes: [horn]) { harness in
      let server = harness.fakes[0].1
      let outcome = try await withThrowingTaskGroup(of: RPCError.Code?.self) { group in
        group.addTask {
          do {
            try await harness.extensionClient.startSendingUpdates(
              .with {
                $0.context = Harness.context; $0.intent = try Harness.intent("INHornIntent", identifier: "endless")
              }
            ) { response in
              for try await _ in response.messages {}
            }
            return nil
          } catch let error as RPCError {
            return error.code
          }
        }
        group.addTask {
          while !horn.seen.calls.contains("StartSendingUpdates") { try await Task.sleep(for: .milliseconds(5)) }
          try await Task.sleep(for: .milliseconds(50))
          // The gateway's own client of the domain (Describe every 200 ms, its health watch) leaves
          // first: a stream it opens while the server is cancelled traps grpc-swift's server
          // (apple/swift-nio#3481). The relayed stream stays on the relay's own connection.
          try harness.directory.setEndpoints(
            harness.directory.connections.map(\.endpoint).filter { $0.port != server.port })
          try await Task.sleep(for: .milliseconds(300))
          await server.kill(goAway: false)  // the stream is reset, not finished; no new stream races it
          try await Task.sleep(for: .seconds(20))
          return .deadlineExceeded
        }
        let first = try await group.next()!
        group.cancelAll()
        return first
      }
      #expect(outcome == .unavailable)
    }
  }
}

/// A count shared by concurrent tasks.
final class Counter: Sendable {
  let value = Atomic<Int>(0)
}
