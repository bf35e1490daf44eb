// messaging-service: UnicornChat's Intents extension over gRPC.
import ArgumentParser
import Foundation
import IntentsRuntime
import Messaging
import ServiceKit

let options = ServiceOptions.parseOrExit()
do {
  let configuration = try options.configuration(
    defaultPort: UnicornChat.defaultPort, defaultDatabase: "data/messaging.sqlite")
  if options.healthCheck { exit(await HealthProbe.exitStatus(port: configuration.port, tls: configuration.tls)) }
  let service = DomainService(
    definition: UnicornChat.definition(),
    configuration: configuration,
    bundledManifest: Bundle.module.url(forResource: "Manifest", withExtension: nil))
  try await service.run()
} catch {
  FileHandle.standardError.write(Data("messaging-service: \(error)\n".utf8))
  exit(1)
}
