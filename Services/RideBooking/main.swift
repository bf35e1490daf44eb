// ridebooking-service: UnicornRides' Intents extension over gRPC.
import ArgumentParser
import Foundation
import IntentsKit
import IntentsRuntime
import RideBooking
import ServiceKit

let options = ServiceOptions.parseOrExit()
do {
  let configuration = try options.configuration(
    defaultPort: UnicornRides.defaultPort, defaultDatabase: "data/ridebooking.sqlite")
  if options.healthCheck { exit(await HealthProbe.exitStatus(port: configuration.port, tls: configuration.tls)) }
  let clock = try UnicornRides.configuredClock()
  let service = DomainService(
    definition: UnicornRides.definition(area: try UnicornRides.configuredArea(), clock: clock),
    configuration: configuration,
    bundledManifest: Bundle.module.url(forResource: "Manifest", withExtension: nil),
    now: { clock.now() })
  try await service.run()
} catch {
  FileHandle.standardError.write(Data("ridebooking-service: \(error)\n".utf8))
  exit(1)
}
