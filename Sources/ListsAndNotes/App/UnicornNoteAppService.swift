internal import Foundation
internal import GRPCCore
internal import IntentMeshProtos
internal import IntentsKit
internal import ListsAndNotesProtos
internal import IntentMeshCore
internal import SQLKit
internal import SwiftProtobuf

/// `intentmesh.notebook.v1.UnicornNoteApp`: UnicornNote's app side — the user's places, and where
/// they are. Every call acts as the caller's verified identity (the bearer token's subject, checked
/// by the server's `AuthenticationInterceptor`); a user names only their own places and fires only
/// their own reminders.
struct UnicornNoteAppService: Intentmesh_Notebook_V1_UnicornNoteApp.SimpleServiceProtocol {
  private let store: any IntentStore
  private let clock: any DomainClock

  init(store: any IntentStore, clock: any DomainClock) {
    self.store = store
    self.clock = clock
  }

  func setPlace(
    request: Intentmesh_Notebook_V1_SetPlaceRequest, context: ServerContext
  ) async throws -> Intentmesh_Notebook_V1_SetPlaceResponse {
    let userID = try UserIdentity.caller()
    let given = request.place
    let radius = given.radiusMeters == 0 ? PlaceReminders.defaultRadiusMeters : given.radiusMeters
    guard (20...5_000).contains(radius) else {
      throw RPCError(code: .invalidArgument, message: "a place's radius is 20–5,000 m, not \(radius)")
    }
    let place = StoredUserPlace(
      name: try AppInput.displayName(given.name), point: try Self.point(given.latitude, given.longitude),
      radiusMeters: radius)
    try await store.write { try await UserPlaceRepository.set(place, for: userID, in: $0) }
    return .with { $0.place = place.appPlace }
  }

  func listPlaces(
    request: Intentmesh_Notebook_V1_ListPlacesRequest, context: ServerContext
  ) async throws -> Intentmesh_Notebook_V1_ListPlacesResponse {
    let userID = try UserIdentity.caller()
    let places = try await store.read { try await UserPlaceRepository.places(of: userID, in: $0) }
    return .with { $0.places = places.map(\.appPlace) }
  }

  func reportLocation(
    request: Intentmesh_Notebook_V1_ReportLocationRequest, context: ServerContext
  ) async throws -> Intentmesh_Notebook_V1_ReportLocationResponse {
    let userID = try UserIdentity.caller()
    let here = try Self.point(request.latitude, request.longitude)
    let now = clock.now()
    let fired = try await store.write { database in
      let reminders = PlaceReminders(
        reminders: try await TaskRepository.placeReminders(of: userID, in: database),
        places: try await UserPlaceRepository.places(of: userID, in: database))
      let fired = reminders.fired(from: try await UserPlaceRepository.lastLocation(of: userID, in: database), to: here)
      for (task, cause) in fired {
        try await ReminderInbox.record(
          .init(taskID: task.id, firedAt: now.epochMilliseconds, cause: cause), for: userID, in: database)
      }
      try await UserPlaceRepository.setLocation(here, of: userID, at: now, in: database)
      return fired.map(\.task)
    }
    return .with { $0.fired = fired.map { $0.task(in: .gmt) } }
  }

  func listNotebook(
    request: Intentmesh_Notebook_V1_ListNotebookRequest, context: ServerContext
  ) async throws -> Intentmesh_Notebook_V1_ListNotebookResponse {
    let userID = try UserIdentity.caller()
    guard let zone = request.timeZone.isEmpty ? TimeZone.gmt : TimeZone(identifier: request.timeZone) else {
      throw RPCError(code: .invalidArgument, message: "\"\(request.timeZone.prefix(60))\" is no IANA time zone")
    }
    let notebook = try await store.read { try await Notebook.load(userID: userID, in: $0) }
    let tasksByList = Dictionary(grouping: notebook.tasks, by: \.listID)
    return .with {
      $0.notes = notebook.notes.sorted { ($0.modifiedAt, $0.id) > ($1.modifiedAt, $1.id) }.map { $0.note(in: zone) }
      $0.taskLists = notebook.lists.sorted { ($0.modifiedAt, $0.id) > ($1.modifiedAt, $1.id) }.map { list in
        list.taskList(tasks: tasksByList[list.id] ?? [], in: zone)
      }
    }
  }

  /// A point on the globe: latitude within ±90, longitude within ±180, both finite.
  static func point(_ latitude: Double, _ longitude: Double) throws -> GeoPoint {
    guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
      throw RPCError(code: .invalidArgument, message: "(\(latitude), \(longitude)) is not a point on the globe")
    }
    return GeoPoint(latitude: latitude, longitude: longitude)
  }
}

extension StoredUserPlace {
  var appPlace: Intentmesh_Notebook_V1_Place {
    .with {
      $0.name = name
      $0.latitude = point.latitude
      $0.longitude = point.longitude
      $0.radiusMeters = radiusMeters
    }
  }
}
