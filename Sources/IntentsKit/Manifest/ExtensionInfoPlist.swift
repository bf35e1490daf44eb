internal import IntentMeshProtos
package import Foundation

/// A domain's `Info.plist`: the app's names and `NSExtension → NSExtensionAttributes →
/// IntentsSupported / IntentsRestrictedWhileLocked`, exactly as an Intents extension declares them.
package struct ExtensionInfoPlist: Decodable, Sendable, Equatable {
  package struct AlternativeAppName: Decodable, Sendable, Equatable {
    package var name: String
    package var pronunciationHint: String?

    enum CodingKeys: String, CodingKey {
      case name = "INAlternativeAppName"
      case pronunciationHint = "INAlternativeAppNamePronunciationHint"
    }
  }

  struct Extension: Decodable, Sendable, Equatable {
    var attributes: Attributes
    var pointIdentifier: String?

    enum CodingKeys: String, CodingKey {
      case attributes = "NSExtensionAttributes"
      case pointIdentifier = "NSExtensionPointIdentifier"
    }
  }

  package struct Attributes: Decodable, Sendable, Equatable {
    var intentsSupported: [String]
    package var intentsRestrictedWhileLocked: [String]?

    enum CodingKeys: String, CodingKey {
      case intentsSupported = "IntentsSupported"
      case intentsRestrictedWhileLocked = "IntentsRestrictedWhileLocked"
    }
  }

  package var displayName: String
  package var alternativeAppNames: [AlternativeAppName]?
  package var version: String?
  var nsExtension: Extension

  enum CodingKeys: String, CodingKey {
    case displayName = "CFBundleDisplayName"
    case alternativeAppNames = "INAlternativeAppNames"
    case version = "CFBundleShortVersionString"
    case nsExtension = "NSExtension"
  }

  var intentsSupported: [String] { nsExtension.attributes.intentsSupported }
  package var intentsRestrictedWhileLocked: [String] { nsExtension.attributes.intentsRestrictedWhileLocked ?? [] }

  package static func load(from url: URL) throws -> ExtensionInfoPlist {
    do {
      return try PropertyListDecoder().decode(ExtensionInfoPlist.self, from: Data(contentsOf: url))
    } catch {
      throw ManifestError.unreadable(path: url.path, underlying: "\(error)")
    }
  }
}
