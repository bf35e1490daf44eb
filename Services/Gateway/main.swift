// gateway: routes every intent to the domain that declared its class, drives the conversation and
// lays out views for UI clients.
import ArgumentParser
import Foundation
import Gateway

let options = GatewayOptions.parseOrExit()
do {
  try await GatewayServer(configuration: try options.configuration()).run()
} catch {
  FileHandle.standardError.write(Data("gateway: \(error)\n".utf8))
  exit(1)
}
