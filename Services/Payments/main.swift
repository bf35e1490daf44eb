// payments-service: UnicornPay's Intents extension over gRPC.
import ArgumentParser
import Foundation
import IntentsRuntime
import Payments
import ServiceKit

let options = ServiceOptions.parseOrExit()
do {
  let configuration = try options.configuration(
    defaultPort: UnicornPay.defaultPort, defaultDatabase: "data/payments.sqlite")
  if options.healthCheck { exit(await HealthProbe.exitStatus(port: configuration.port, tls: configuration.tls)) }
  let service = DomainService(
    definition: UnicornPay.definition(),
    configuration: configuration,
    bundledManifest: Bundle.module.url(forResource: "Manifest", withExtension: nil))
  try await service.run()
} catch {
  FileHandle.standardError.write(Data("payments-service: \(error)\n".utf8))
  exit(1)
}
