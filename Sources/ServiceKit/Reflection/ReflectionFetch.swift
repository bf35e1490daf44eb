package import GRPCCore
internal import ReflectionProtos
package import SwiftProtobuf

/// Asks a server's grpc.reflection.v1 for the files that define some symbols, on one stream: what a
/// gateway learns of its domains' types, and what `intentmesh` learns of any intent's payload.
package enum ReflectionFetch {
  /// For each symbol the server knows, the files it answered: the defining file first, then what it
  /// imports. A symbol the server does not know gets an empty list.
  package static func files<Transport: ClientTransport>(
    defining symbols: [String], over client: GRPCClient<Transport>, timeout: Duration = .seconds(10)
  ) async throws -> [[Google_Protobuf_FileDescriptorProto]] {
    guard !symbols.isEmpty else { return [] }
    var options = CallOptions.defaults
    options.timeout = timeout
    // A connection still coming up (or back) is waited for, within the timeout.
    options.waitForReady = true
    let answers = try await Grpc_Reflection_V1_ServerReflection.Client(wrapping: client).serverReflectionInfo(
      options: options,
      requestProducer: { writer in
        for symbol in symbols { try await writer.write(.with { $0.fileContainingSymbol = symbol }) }
      },
      onResponse: { response in
        var answers: [[Google_Protobuf_FileDescriptorProto]] = []
        for try await answer in response.messages {
          answers.append(
            try answer.fileDescriptorResponse.fileDescriptorProto.map {
              try Google_Protobuf_FileDescriptorProto(serializedBytes: $0)
            })
          if answers.count == symbols.count { break }
        }
        return answers
      })
    return answers
  }
}
