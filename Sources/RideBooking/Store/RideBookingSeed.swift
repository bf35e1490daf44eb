internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// Demo data: the sessions' places in San Francisco ("300 Post Street", "Bill Graham
/// Auditorium", "the forest"), two places outside the service area, three drivers in their stables,
/// and the riders `diana` (pays with Apple Pay) and `sleepy` (credentials not verified).
enum RideBookingSeed {
  static let demoUser = "diana"

  static let places: [StoredKnownPlace] = [
    StoredKnownPlace(
      name: "300 Post Street", point: GeoPoint(latitude: 37.7887, longitude: -122.4074), thoroughfare: "300 Post St",
      locality: "San Francisco"),
    StoredKnownPlace(
      name: "Bill Graham Auditorium", aliases: ["Bill Graham Civic Auditorium"],
      point: GeoPoint(latitude: 37.7784, longitude: -122.4177), thoroughfare: "99 Grove St", locality: "San Francisco"),
    StoredKnownPlace(
      name: "Unicorn Forest", aliases: ["the forest", "forest"],
      point: GeoPoint(latitude: 37.7989, longitude: -122.4662),
      locality: "San Francisco"),
    StoredKnownPlace(
      name: "Moscone West", point: GeoPoint(latitude: 37.7840, longitude: -122.4010), thoroughfare: "800 Howard St",
      locality: "San Francisco"),
    StoredKnownPlace(
      name: "Ferry Building", point: GeoPoint(latitude: 37.7955, longitude: -122.3937), locality: "San Francisco"),
    StoredKnownPlace(
      name: "Muir Woods", point: GeoPoint(latitude: 37.8970, longitude: -122.5811), locality: "Mill Valley"),
    StoredKnownPlace(name: "San Jose", point: GeoPoint(latitude: 37.3382, longitude: -121.8863), locality: "San Jose"),
  ]

  static let drivers: [StoredDriver] = [
    StoredDriver(
      id: "twilight", givenName: "Twilight", familyName: "Hoof", rating: "4.9", phoneNumber: "+1 415 555 0101",
      registrationPlate: "UNCRN 1", stable: GeoPoint(latitude: 37.7936, longitude: -122.3965)),
    StoredDriver(
      id: "stardust", givenName: "Stardust", familyName: "Mane", rating: "4.7", phoneNumber: "+1 415 555 0102",
      registrationPlate: "UNCRN 2", stable: GeoPoint(latitude: 37.7694, longitude: -122.4862)),
    StoredDriver(
      id: "moonbeam", givenName: "Moonbeam", familyName: "Gallop", rating: "5.0", phoneNumber: "+1 415 555 0103",
      registrationPlate: "UNCRN 3", stable: GeoPoint(latitude: 37.7599, longitude: -122.4148)),
  ]

  /// Fills an empty store, the riders through the app's own call (`RidesApp.signUp`); does nothing
  /// when the demo rider exists.
  static func seed(_ store: any IntentStore) async throws {
    try await store.write { database in
      if try await StoredRider.load(demoUser, in: database) != nil { return }
      try await RidesApp.signUp(
        StoredRider(
          userID: demoUser, displayName: "Diana Huang",
          paymentMethod: .with {
            $0.type = .applePay; $0.name = "Apple Pay"
          }
        ), in: database)
      try await RidesApp.signUp(
        StoredRider(
          userID: "sleepy", displayName: "Sleepy Hollow", credentialsVerified: false,
          paymentMethod: .with {
            $0.type = .credit; $0.name = "Sparkle Card"; $0.identificationHint = "0042"
          }
        ), in: database)
      for place in places { try await PlaceRepository.add(place, in: database) }
      for driver in drivers { try await DriverRepository.add(driver, in: database) }
    }
  }
}
