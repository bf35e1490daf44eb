internal import Foundation
internal import MessagingProtos
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import SQLKit

/// A user's named conversation groups ("Rainbow Riders").
enum MessageGroupRepository {
  struct Group: Sendable, Equatable {
    var id: String
    var name: String
  }

  static func groups(of userID: String, in database: any SQLDatabase) async throws -> [Group] {
    try await database.raw(
      "SELECT group_id, name FROM messaging_groups WHERE user_id = \(bind: userID) ORDER BY name"
    ).all().map {
      Group(
        id: try $0.decode(column: "group_id", as: String.self), name: try $0.decode(column: "name", as: String.self))
    }
  }

  static func add(_ group: Group, for userID: String, in database: any SQLDatabase) async throws {
    try await database.raw(
      "INSERT INTO messaging_groups (user_id, group_id, name) VALUES (\(bind: userID), \(bind: group.id), \(bind: group.name))"
    ).run()
  }
}
