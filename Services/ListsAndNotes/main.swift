// notes-service: UnicornNote's Intents extension over gRPC.
import ArgumentParser
import Foundation
import IntentsKit
import IntentsRuntime
import ListsAndNotes
import ServiceKit

let options = ServiceOptions.parseOrExit()
do {
  let configuration = try options.configuration(
    defaultPort: UnicornNote.defaultPort, defaultDatabase: "data/notes.sqlite")
  if options.healthCheck { exit(await HealthProbe.exitStatus(port: configuration.port, tls: configuration.tls)) }
  let clock = SystemClock()
  let service = DomainService(
    definition: UnicornNote.definition(clock: clock),
    configuration: configuration,
    bundledManifest: Bundle.module.url(forResource: "Manifest", withExtension: nil),
    now: { clock.now() })
  try await service.run()
} catch {
  FileHandle.standardError.write(Data("notes-service: \(error)\n".utf8))
  exit(1)
}
