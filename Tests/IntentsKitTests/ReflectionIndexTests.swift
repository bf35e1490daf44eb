import Foundation
@testable import IntentsKit
import ReflectionProtos
import SwiftProtobuf
import Testing
@testable import ServiceKit

@Suite("Reflection index over the embedded descriptor set")
struct ReflectionIndexTests {
  let index: ReflectionIndex

  init() throws {
    index = try ReflectionIndex.embedded(services: ["intentmesh.v1.IntentsExtension", "grpc.health.v1.Health"])
  }

  func files(_ request: Grpc_Reflection_V1_ServerReflectionRequest) throws -> [Google_Protobuf_FileDescriptorProto] {
    try index.answer(request).fileDescriptorResponse.fileDescriptorProto.map {
      try Google_Protobuf_FileDescriptorProto(serializedBytes: $0)
    }
  }

  @Test("nested messages, enums, methods and services resolve to their file; imports follow, each once")
  func symbols() throws {
    let nested = try files(.with { $0.fileContainingSymbol = "google.rpc.BadRequest.FieldViolation" })
    #expect(nested.first?.name == "google/rpc/error_details.proto")
    #expect(nested.map(\.name).contains("google/protobuf/duration.proto"))
    let method = try files(.with { $0.fileContainingSymbol = "grpc.health.v1.Health.Watch" })
    #expect(method.map(\.name) == ["grpc/health/v1/health.proto"])
    let all = try files(.with { $0.fileContainingSymbol = "intentmesh.gateway.v1.Gateway" })
    #expect(all.first?.name == "intentmesh/gateway/v1/gateway.proto")
    #expect(Set(all.map(\.name)).count == all.count)
    for file in all {
      for dependency in file.dependency { #expect(all.contains { $0.name == dependency }, "\(dependency)") }
    }
    // Documentation travels with the descriptors, so grpcurl describe shows it.
    #expect(all.first?.sourceCodeInfo.location.contains { !$0.leadingComments.isEmpty } == true)
  }

  @Test("unknown files and symbols are NOT_FOUND with the name; an empty request is INVALID_ARGUMENT")
  func errors() {
    let file = index.answer(.with { $0.fileByFilename = "nope.proto" })
    #expect(file.errorResponse.errorCode == 5 && file.errorResponse.errorMessage.contains("nope.proto"))
    let symbol = index.answer(.with { $0.fileContainingSymbol = "intentmesh.v1.Nope" })
    #expect(symbol.errorResponse.errorCode == 5)
    #expect(index.answer(.init()).errorResponse.errorCode == 3)
    let extensionNumbers = index.answer(.with { $0.allExtensionNumbersOfType = "intentmesh.v1.Nope" })
    #expect(extensionNumbers.errorResponse.errorCode == 5)
  }

  @Test("list_services lists what the server offers, sorted; the request is echoed")
  func listServices() {
    let answer = index.answer(
      .with {
        $0.host = "localhost"; $0.listServices = "*"
      })
    #expect(
      answer.listServicesResponse.service.map(\.name) == ["grpc.health.v1.Health", "intentmesh.v1.IntentsExtension"])
    #expect(answer.validHost == "localhost")
    #expect(answer.originalRequest.listServices == "*")
  }

  @Test("a message with no extensions has an empty extension list")
  func extensionNumbers() {
    let answer = index.answer(.with { $0.allExtensionNumbersOfType = "intentmesh.v1.Intent" })
    #expect(answer.allExtensionNumbersResponse.baseTypeName == "intentmesh.v1.Intent")
    #expect(answer.allExtensionNumbersResponse.extensionNumber.isEmpty)
  }
}
