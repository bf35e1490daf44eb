@testable import IntentsKit
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
@testable import Gateway
import IntentMeshProtos
import IntentsKitTesting
@testable import Messaging
import MessagingProtos
import SwiftProtobuf
import Testing
@testable import ServiceKit

@Suite("gateway routing over real sockets", .serialized)
struct GatewayRoutingTests {
  typealias Harness = TestGateway

  @Test("routes by class to UnicornChat; payload bytes arrive untouched; ListRoutes shows the table")
  func routesByClass() async throws {
    try await Harness.run { harness in
      let message = SendMessageIntent.with {
        $0.recipients = [.with { $0.displayName = "Celestra" }]; $0.content = "Hi"
      }
      let intent = try Harness.intent("INSendMessageIntent", payload: message)
      let resolved = try await harness.extensionClient.resolve(
        .with {
          $0.context = Harness.context; $0.intent = intent
        })
      #expect(resolved.complete)
      #expect(resolved.resolutions[0].results[0].success.value.displayText == "Celestra")
      let routes = try await harness.gatewayClient.listRoutes(.init())
      #expect(routes.domains.map(\.appName) == ["UnicornChat"])
      #expect(routes.domains[0].health == "SERVING")
      #expect(routes.routes.map(\.intentClass).contains("INGetVisualCodeIntent"))
      #expect(routes.routes.first { $0.intentClass == "INSendMessageIntent" }?.restrictedWhileLocked == true)
    }
  }

  @Test("bad input: unknown class, unknown app, locked device, wrong payload type")
  func badInput() async throws {
    try await Harness.run { harness in
      await expectStatus(.notFound, containing: ["INBookRestaurantReservationIntent"]) {
        _ = try await harness.extensionClient.resolve(
          .with {
            $0.context = Harness.context; $0.intent = try Harness.intent("INBookRestaurantReservationIntent")
          })
      }
      await expectStatus(.notFound, containing: ["UnicornPay", "UnicornChat"]) {
        _ = try await harness.extensionClient.resolve(
          .with {
            $0.context = Harness.context; $0.intent = try Harness.intent("INSendMessageIntent", app: "UnicornPay")
          })
      }
      var locked = Harness.context
      locked.deviceLocked = true
      await expectStatus(.failedPrecondition, containing: ["INSendMessageIntent", "unlock"]) {
        _ = try await harness.extensionClient.confirmAndHandle(
          .with {
            $0.context = locked; $0.intent = try Harness.intent("INSendMessageIntent", identifier: "x")
          })
      }
      await expectStatus(.invalidArgument, containing: ["intentmesh.messaging.v1.SendMessageIntent"]) {
        _ = try await harness.extensionClient.resolve(
          .with {
            $0.context = Harness.context
            $0.intent = try Harness.intent("INSendMessageIntent", payload: GetVisualCodeIntent())
          })
      }
      await expectStatus(.unimplemented, containing: ["ListRoutes"]) {
        _ = try await harness.extensionClient.describe(.init())
      }
    }
  }

  @Test("two apps claim one class: an error naming both; naming the app routes; locked refused before any call")
  func conflicts() async throws {
    let horn = FakeDomain(
      appName: "HornChat", alternatives: ["Horn"], intents: ["INSendMessageIntent", "INHornIntent"],
      restricted: ["INHornIntent"])
    try await Harness.run(fakes: [horn]) { harness in
      await expectStatus(.failedPrecondition, containing: ["UnicornChat", "HornChat", "more than one app"]) {
        _ = try await harness.extensionClient.resolve(
          .with {
            $0.context = Harness.context; $0.intent = try Harness.intent("INSendMessageIntent")
          })
      }
      let viaHorn = try await harness.extensionClient.resolve(
        .with {
          $0.context = Harness.context; $0.intent = try Harness.intent("INSendMessageIntent", app: "horn")
        })
      #expect(viaHorn.resolutions.map(\.parameter) == ["thing"])
      let viaUnicorn = try await harness.extensionClient.resolve(
        .with {
          $0.context = Harness.context; $0.intent = try Harness.intent("INSendMessageIntent", app: "Unicorn Chat")
        })
      #expect(viaUnicorn.resolutions.map(\.parameter) == ["recipients", "content", "speakableGroupName"])

      var locked = Harness.context
      locked.deviceLocked = true
      let before = horn.seen.calls.count
      await expectStatus(.failedPrecondition, containing: ["INHornIntent"]) {
        _ = try await harness.extensionClient.resolve(
          .with {
            $0.context = locked; $0.intent = try Harness.intent("INHornIntent")
          })
      }
      #expect(horn.seen.calls.count == before)
    }
  }

  @Test("deadline, request id and application metadata travel to the domain")
  func deadlinesAndMetadata() async throws {
    let horn = FakeDomain(appName: "HornChat", intents: ["INHornIntent"])
    try await Harness.run(fakes: [horn], defaultTimeout: .seconds(7)) { harness in
      var metadata = Metadata()
      metadata.addString("req-42", forKey: "x-request-id")
      metadata.addString("kept", forKey: "x-custom")
      var options = CallOptions.defaults
      // Room for a loaded machine (the whole suite runs in parallel); the budget must still arrive.
      options.timeout = .seconds(4)
      _ = try await harness.extensionClient.resolve(
        .with {
          $0.context = Harness.context; $0.intent = try Harness.intent("INHornIntent")
        }, metadata: metadata, options: options)
      _ = try await harness.extensionClient.resolve(
        .with {
          $0.context = Harness.context; $0.intent = try Harness.intent("INHornIntent")
        })
      let seen = horn.seen
      #expect(seen.requestIDs.first == "req-42")
      #expect(seen.requestIDs.count == 2)
      #expect(seen.custom == ["kept"])
      let budgets = seen.timeouts.compactMap(GRPCTimeout.parse)
      #expect(budgets.count == 2)
      #expect(budgets[0] <= .seconds(4) && budgets[0] > .seconds(2))
      #expect(budgets[1] <= .seconds(7) && budgets[1] > .seconds(6))
    }
  }

  @Test("a slow domain fails with DEADLINE_EXCEEDED within the caller's deadline")
  func slowDomain() async throws {
    let slow = FakeDomain(appName: "SlowChat", intents: ["INSlowIntent"], resolveDelay: .seconds(2))
    try await Harness.run(fakes: [slow]) { harness in
      var options = CallOptions.defaults
      options.timeout = .milliseconds(300)
      let started = ContinuousClock.now
      await expectStatus(.deadlineExceeded, containing: []) {
        _ = try await harness.extensionClient.resolve(
          .with {
            $0.context = Harness.context; $0.intent = try Harness.intent("INSlowIntent")
          }, options: options)
      }
      // Well before the 10 s default deadline (on a quiet machine, within a few milliseconds; CI runs
      // every suite at once on two cores).
      #expect(ContinuousClock.now - started < .seconds(5))
      // The other domain is unaffected.
      let fine = try await harness.extensionClient.resolve(
        .with {
          $0.context = Harness.context; $0.intent = try Harness.intent("INSearchForMessagesIntent")
        })
      #expect(fine.complete)
    }
  }

  @Test(
    "a domain taken out of the list while calls to it run: the calls in flight finish, on the relay and on the gateway's own path; new calls are not routed to it"
  )
  func domainRemovedWithCallsInFlight() async throws {
    let slow = FakeDomain(appName: "SlowChat", intents: ["INSlowIntent"], resolveDelay: .seconds(1))
    try await Harness.run(fakes: [slow]) { harness in
      let request = Intentmesh_V1_ResolveRequest.with {
        $0.context = Harness.context; $0.intent = try! Harness.intent("INSlowIntent")
      }
      // The gateway's own path: a compressed request, which the relay does not read, goes to the
      // gateway's own server, which forwards the call over its client of the domain.
      let transport = try HTTP2ClientTransport.Posix(
        target: .ipv4(address: "127.0.0.1", port: harness.port), transportSecurity: .plaintext,
        config: .defaults { $0.compression = .init(algorithm: .gzip, enabledAlgorithms: .all) })
      try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) { grpc in
        let ownPath = Intentmesh_V1_IntentsExtension.Client(wrapping: grpc)
        var compressed = CallOptions.defaults
        compressed.compression = .gzip
        async let relayed = harness.extensionClient.resolve(request)
        async let forwarded = ownPath.resolve(request, options: compressed)
        // Both are at the domain (which takes a second to answer) when it leaves the list: waited
        // for, not slept for — on a loaded machine the calls may take longer than any fixed sleep to
        // arrive, and a call not yet routed when the domain leaves is rightly NOT_FOUND.
        let arrived = ContinuousClock.now + .seconds(10)
        while slow.seen.calls.filter({ $0 == "Resolve" }).count < 2, ContinuousClock.now < arrived {
          try await Task.sleep(for: .milliseconds(5))
        }
        let slowPort = harness.fakes[0].1.port
        let change = try harness.directory.setEndpoints(
          harness.directory.connections.map(\.endpoint).filter { $0.port != slowPort })
        #expect(change.removed.map(\.port) == [slowPort])
        let (relayedAnswer, forwardedAnswer) = try await (relayed, forwarded)
        #expect(relayedAnswer.complete)
        #expect(forwardedAnswer.complete)
        #expect(slow.seen.calls.filter { $0 == "Resolve" }.count == 2)
        await expectStatus(.notFound, containing: ["INSlowIntent"]) {
          _ = try await harness.extensionClient.resolve(request)
        }
        #expect(slow.seen.calls.filter { $0 == "Resolve" }.count == 2, "no new call reaches it")
      }
    }
  }

  @Test("a domain killed mid-test fails only its intents, fast; the gateway recovers when it returns")
  func domainKilled() async throws {
    let horn = FakeDomain(appName: "HornChat", intents: ["INHornIntent"])
    try await Harness.run(fakes: [horn]) { harness in
      let request = Intentmesh_V1_ResolveRequest.with {
        $0.context = Harness.context; $0.intent = try! Harness.intent("INHornIntent")
      }
      _ = try await harness.extensionClient.resolve(request)
      let (_, server) = harness.fakes[0]
      await server.kill()
      let started = ContinuousClock.now
      await expectStatus(.unavailable, containing: ["HornChat"]) {
        _ = try await harness.extensionClient.resolve(request)
      }
      // Well before the 10 s default deadline (on a quiet machine, within a few milliseconds; CI runs
      // every suite at once on two cores).
      #expect(ContinuousClock.now - started < .seconds(5))
      let chat = try await harness.extensionClient.resolve(
        .with {
          $0.context = Harness.context; $0.intent = try Harness.intent("INSearchForMessagesIntent")
        })
      #expect(chat.complete)

      let board = HealthStatusBoard()
      board.set(.serving, for: "")
      let restarted = try await SocketServer.start(services: [horn, HealthService(board: board)], port: server.port)
      var recovered = false
      for _ in 0..<100 where !recovered {
        recovered = (try? await harness.extensionClient.resolve(request)) != nil
        if !recovered { try await Task.sleep(for: .milliseconds(100)) }
      }
      #expect(recovered)
      board.finish()
      await restarted.stop()
    }
  }

  @Test("an intent added to a running domain becomes routable without a gateway restart")
  func intentAdded() async throws {
    let horn = FakeDomain(appName: "HornChat", intents: ["INHornIntent"])
    try await Harness.run(fakes: [horn]) { harness in
      let request = Intentmesh_V1_ResolveRequest.with {
        $0.context = Harness.context; $0.intent = try! Harness.intent("INTootIntent")
      }
      await expectStatus(.notFound, containing: ["INTootIntent"]) {
        _ = try await harness.extensionClient.resolve(request)
      }
      horn.setIntents(["INHornIntent", "INTootIntent"])
      var routed = false
      for _ in 0..<50 where !routed {
        routed = (try? await harness.extensionClient.resolve(request)) != nil
        if !routed { try await Task.sleep(for: .milliseconds(100)) }
      }
      #expect(routed)
    }
  }

  @Test("vocabulary goes to every domain that uses the type; live updates stream through")
  func vocabularyAndUpdates() async throws {
    let horn = FakeDomain(appName: "HornChat", intents: ["INHornIntent"])
    try await Harness.run(fakes: [horn]) { harness in
      let stored = try await harness.extensionClient.setUserVocabulary(
        .with {
          $0.context = Harness.context; $0.vocabularyType = .contactName; $0.strings = ["Moonbeam"]
        })
      #expect(stored.storedCount == 1)
      #expect(horn.seen.calls.contains("SetUserVocabulary"))
      let phases = try await harness.extensionClient.startSendingUpdates(
        .with {
          $0.context = Harness.context; $0.intent = try Harness.intent("INHornIntent")
        }
      ) { response in
        var phases: [String] = []
        for try await update in response.messages { phases.append(update.response.codeName) }
        return phases
      }
      #expect(phases == ["received", "confirmed", "completed"])

      // A client that leaves an endless stream: the gateway cancels the domain's stream too.
      var endless = try Harness.intent("INHornIntent")
      endless.identifier = "endless"
      let first = try await harness.extensionClient.startSendingUpdates(
        .with {
          $0.context = Harness.context; $0.intent = endless
        }
      ) { response -> String? in
        for try await update in response.messages { return update.response.codeName }
        return nil
      }
      #expect(first == "received")
      let giveUp = ContinuousClock.now + .seconds(10)
      while !horn.seen.calls.contains("StartSendingUpdates cancelled"), ContinuousClock.now < giveUp {
        await Task.yield()
      }
      #expect(horn.seen.calls.contains("StartSendingUpdates cancelled"))
    }
  }
}
