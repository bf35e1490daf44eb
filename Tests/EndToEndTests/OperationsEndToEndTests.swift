import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import IntentMeshProtos
@testable import IntentsKit
import ReflectionProtos
import SwiftProtobuf
import ServiceLauncher
import Testing
@testable import ServiceKit

@Suite("Operations over real sockets: Prometheus metrics and gRPC server reflection", .serialized)
struct OperationsEndToEndTests {
  static let context = Intentmesh_V1_RequestContext.with {
    $0.userID = "diana"; $0.timeZone = "Europe/Zurich"
  }

  /// The metrics port `service` printed, waiting for the line if needed.
  static func metricsPort(of service: ServiceProcess) async throws -> Int {
    for _ in 0..<250 {
      if let port = MetricsScrape.port(in: service.log) { return port }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw ServiceProcess.Failure(description: "no metrics line in: \(service.log)")
  }

  @Test("metrics count calls by method and status code, time them, and show none in flight afterwards")
  func metrics() async throws {
    let file = TemporaryDatabaseFile("metrics")
    defer { file.remove() }
    let messaging = try await ServiceProcess("messaging-service", arguments: ["--port", "0", "--database", file.path])
    let port = try await Self.metricsPort(of: messaging)
    let refused = try await Loopback.withClient(port: messaging.port) { grpc in
      let client = Intentmesh_V1_IntentsExtension.Client(wrapping: grpc)
      for _ in 0..<3 { _ = try await client.describe(.init()) }
      do {
        _ = try await client.resolve(
          .with {
            $0.context = Self.context
            $0.intent = .with { $0.intentClass = "INOrderPizzaIntent" }
          })
        return nil as RPCError.Code?
      } catch let error as RPCError {
        return error.code
      }
    }
    let refusedCode = try #require(refused)
    let scrape = try MetricsScrape.get(port: port)
    #expect(scrape.status.hasPrefix("HTTP/1.1 200"))
    let describe = #"grpc_method="Describe""#
    let service = #"grpc_service="intentmesh.v1.IntentsExtension""#
    #expect(MetricsScrape.value(in: scrape.body, "grpc_server_started_total{", describe, service) == 3)
    #expect(MetricsScrape.value(in: scrape.body, "grpc_server_handled_total{", describe, #"grpc_code="OK""#) == 3)
    #expect(MetricsScrape.value(in: scrape.body, "grpc_server_handling_seconds_count{", describe) == 3)
    #expect(MetricsScrape.value(in: scrape.body, "grpc_server_handling_seconds_bucket{", describe, #"le="+Inf""#) == 3)
    let refusedName = MetricsInterceptor.name(refusedCode)
    #expect(
      MetricsScrape.value(
        in: scrape.body, "grpc_server_handled_total{", #"grpc_method="Resolve""#, "grpc_code=\"\(refusedName)\"") == 1,
      "\(scrape.body)")
    #expect(MetricsScrape.value(in: scrape.body, "grpc_server_in_flight_calls_all ") == 0)
    #expect(try MetricsScrape.get(port: port, path: "/").status.hasPrefix("HTTP/1.1 404"))
    #expect(try await messaging.stop() == 0)
  }

  @Test("the store's writes, commits and the log syncs that made them durable are in the metrics")
  func storeMetrics() async throws {
    let file = TemporaryDatabaseFile("store-metrics")
    defer { file.remove() }
    let messaging = try await ServiceProcess("messaging-service", arguments: ["--port", "0", "--database", file.path])
    let port = try await Self.metricsPort(of: messaging)
    func counts() throws -> (writes: Double, commits: Double, syncs: Double) {
      let body = try MetricsScrape.get(port: port).body
      return (
        MetricsScrape.value(in: body, "intentmesh_store_writes_total ") ?? -1,
        MetricsScrape.value(in: body, "intentmesh_store_commits_total ") ?? -1,
        MetricsScrape.value(in: body, "intentmesh_store_syncs_total ") ?? -1
      )
    }
    // Migrations and seed data were committed, and made durable, before the service answered.
    let before = try counts()
    #expect(before.commits >= 1 && before.commits <= before.writes)
    #expect(before.syncs >= 1 && before.syncs <= before.commits)
    try await Loopback.withClient(port: messaging.port) { grpc in
      let client = Intentmesh_V1_IntentsExtension.Client(wrapping: grpc)
      for phrase in ["Moonbeam", "Stardust"] {
        _ = try await client.setUserVocabulary(
          .with {
            $0.context = Self.context
            $0.vocabularyType = .contactName
            $0.speakables = [
              .with {
                $0.spokenPhrase = phrase; $0.vocabularyIdentifier = "celestra"
              }
            ]
          })
      }
    }
    let after = try counts()
    // One after the other: each a commit of its own, and each waited for a sync of its own.
    #expect(after.writes == before.writes + 2)
    #expect(after.commits == before.commits + 2)
    #expect(after.syncs == before.syncs + 2)
    let body = try MetricsScrape.get(port: port).body
    #expect(MetricsScrape.value(in: body, "intentmesh_store_checkpoint_failures_total ") == 0)
    #expect(try await messaging.stop() == 0)
  }

  @Test(
    "the gateway counts the calls it relays under the same names, with the status the domain answered (on one event loop)"
  )
  func relayedCallMetrics() async throws {
    let file = TemporaryDatabaseFile("relay-metrics")
    defer { file.remove() }
    let messaging = try await ServiceProcess("messaging-service", arguments: ["--port", "0", "--database", file.path])
    let gateway = try await ServiceProcess(
      "gateway",
      arguments: [
        "--port", "0", "--metrics-port", "0", "--event-loops", "1", "--domain", "127.0.0.1:\(messaging.port)",
      ])
    let port = try await Self.metricsPort(of: gateway)
    #if os(Linux)
      // One event-loop thread (SwiftNIO names them NIO-SGLTN-<group>-#<n>).
      let tasks = "/proc/\(gateway.process.processIdentifier)/task"
      let names = try FileManager.default.contentsOfDirectory(atPath: tasks).map {
        try String(contentsOfFile: "\(tasks)/\($0)/comm", encoding: .utf8)
      }
      #expect(names.filter { $0.hasPrefix("NIO-SGLTN") }.count == 1, "\(names)")
    #endif
    let send = try MessagingEndToEndTests.sendIntent()
    let codes = try await Loopback.withClient(port: gateway.port) { grpc in
      let client = Intentmesh_V1_IntentsExtension.Client(wrapping: grpc)
      var codes: [RPCError.Code?] = []
      for payloadType in ["intentmesh.messaging.v1.SendMessageIntent", "intentmesh.v1.Nope"] {
        for _ in 0..<2 {
          do {
            _ = try await client.resolve(
              .with {
                $0.context = Self.context
                $0.intent = send
                $0.intent.payload.typeURL = "type.googleapis.com/" + payloadType
              })
            codes.append(nil)
          } catch let error as RPCError {
            codes.append(error.code)
          }
        }
      }
      return codes
    }
    #expect(codes == [nil, nil, .invalidArgument, .invalidArgument])
    let scrape = try MetricsScrape.get(port: port)
    let resolve = #"grpc_method="Resolve""#
    #expect(MetricsScrape.value(in: scrape.body, "grpc_server_started_total{", resolve) == 4, "\(scrape.body)")
    #expect(MetricsScrape.value(in: scrape.body, "grpc_server_handled_total{", resolve, #"grpc_code="OK""#) == 2)
    #expect(
      MetricsScrape.value(in: scrape.body, "grpc_server_handled_total{", resolve, #"grpc_code="INVALID_ARGUMENT""#)
        == 2)
    #expect(MetricsScrape.value(in: scrape.body, "grpc_server_handling_seconds_count{", resolve) == 4)
    #expect(MetricsScrape.value(in: scrape.body, "grpc_server_in_flight_calls_all ") == 0)
    #expect(try await gateway.stop() == 0)
    #expect(try await messaging.stop() == 0)
  }

  @Test("reflection v1 and v1alpha list the services and describe every contract with its imports, via the gateway too")
  func reflection() async throws {
    let file = TemporaryDatabaseFile("reflection")
    defer { file.remove() }
    let payments = try await ServiceProcess("payments-service", arguments: ["--port", "0", "--database", file.path])
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(payments.port)"])
    for (port, expected) in [
      (
        payments.port,
        ["grpc.health.v1.Health", "intentmesh.payments.v1.UnicornPayApp", "intentmesh.v1.IntentsExtension"]
      ),
      // The gateway lists the app service it relays to the payments domain beside its own.
      (
        gateway.port,
        [
          "grpc.health.v1.Health", "intentmesh.gateway.v1.Gateway", "intentmesh.payments.v1.UnicornPayApp",
          "intentmesh.v1.IntentsExtension",
        ]
      ),
    ] {
      for service in ["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"] {
        let answers = try await Self.reflect(
          port: port, service: service,
          [
            .with { $0.listServices = "" },
            .with { $0.fileContainingSymbol = "intentmesh.payments.v1.SendPaymentIntent" },
            .with { $0.fileByFilename = "google/rpc/error_details.proto" },
            .with { $0.fileContainingSymbol = "intentmesh.v1.IntentsExtension.Handle" },
            .with { $0.fileContainingSymbol = "no.such.Thing" },
          ])
        #expect(answers.count == 5)
        let listed = answers[0].listServicesResponse.service.map(\.name)
        #expect(listed == (expected + ReflectionServiceNames.all).sorted(), "\(service)")
        let payments = try answers[1].fileDescriptorResponse.fileDescriptorProto.map {
          try Google_Protobuf_FileDescriptorProto(serializedBytes: $0).name
        }
        #expect(payments.first == "intentmesh/payments/v1/payments.proto")
        #expect(payments.contains("google/protobuf/timestamp.proto"))
        #expect(payments.contains("intentmesh/v1/types.proto"))
        #expect(Set(payments).count == payments.count)
        let details = try answers[2].fileDescriptorResponse.fileDescriptorProto.map {
          try Google_Protobuf_FileDescriptorProto(serializedBytes: $0)
        }
        #expect(details.first?.messageType.contains { $0.name == "BadRequest" } == true)
        let handle = try answers[3].fileDescriptorResponse.fileDescriptorProto.first.map {
          try Google_Protobuf_FileDescriptorProto(serializedBytes: $0).name
        }
        #expect(handle == "intentmesh/v1/extension_service.proto")
        #expect(answers[4].errorResponse.errorCode == 5)
        #expect(answers[4].errorResponse.errorMessage.contains("no.such.Thing"))
      }
    }
    // Errors carry a google.rpc.ErrorInfo detail (which the descriptor set lets grpcurl print),
    // from the gateway and from a domain through the gateway.
    for (intentClass, reason) in [("INOrderPizzaIntent", "NO_ROUTE"), ("INSendPaymentIntent", "INVALID_PAYLOAD")] {
      let error = try await Loopback.withClient(port: gateway.port) { grpc in
        do {
          _ = try await Intentmesh_V1_IntentsExtension.Client(wrapping: grpc).resolve(
            .with {
              $0.context = Self.context
              $0.intent = .with {
                $0.intentClass = intentClass
                $0.payload = .with { $0.typeURL = "type.googleapis.com/intentmesh.v1.Nope" }
              }
            })
          return nil as RPCError?
        } catch let error as RPCError {
          return error
        }
      }
      let status = try #require(try error?.unpackGoogleRPCStatus())
      #expect(status.details.first?.errorInfo?.reason == reason)
      #expect(status.details.first?.errorInfo?.domain == "intentmesh.dev")
    }
    #expect(try await gateway.stop() == 0)
    #expect(try await payments.stop() == 0)
  }

  /// Sends `requests` on one reflection stream of `service` and collects the answers.
  static func reflect(
    port: Int, service: String, _ requests: [Grpc_Reflection_V1_ServerReflectionRequest]
  ) async throws -> [Grpc_Reflection_V1_ServerReflectionResponse] {
    try await Loopback.withClient(port: port) { grpc in
      try await grpc.bidirectionalStreaming(
        request: StreamingClientRequest { writer in
          for request in requests { try await writer.write(request) }
        },
        descriptor: MethodDescriptor(fullyQualifiedService: service, method: "ServerReflectionInfo"),
        serializer: ProtobufSerializer<Grpc_Reflection_V1_ServerReflectionRequest>(),
        deserializer: ProtobufDeserializer<Grpc_Reflection_V1_ServerReflectionResponse>(),
        options: .defaults
      ) { response in
        var answers: [Grpc_Reflection_V1_ServerReflectionResponse] = []
        for try await answer in response.messages { answers.append(answer) }
        return answers
      }
    }
  }
}

/// The reflection services every IntentMesh server lists beside its own.
enum ReflectionServiceNames {
  static let all = ["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"]
}
