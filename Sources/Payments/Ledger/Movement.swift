internal import Foundation
internal import IntentMeshProtos
internal import SwiftProtobuf

/// One movement of money: two or more legs that sum to zero in each currency.
struct Movement: Sendable, Equatable {
  enum Kind: String, Sendable {
    case opening, deposit, payment, transfer, bill, scheduledHold = "scheduled-hold", scheduledSettle =
      "scheduled-settle"
  }

  /// One side: `amount` added to (positive) or taken from (negative) an account.
  struct Leg: Sendable, Equatable {
    var accountID: String
    var amount: Money

    init(_ accountID: String, _ amount: Money) {
      self.accountID = accountID
      self.amount = amount
    }
  }

  var id: String
  var userID: String
  var kind: Kind
  var intentIdentifier: String
  var description: String
  var legs: [Leg]

  init(
    id: String, userID: String, kind: Kind, intentIdentifier: String = "", description: String, legs: [Leg]
  ) {
    self.id = id
    self.userID = userID
    self.kind = kind
    self.intentIdentifier = intentIdentifier
    self.description = description
    self.legs = legs
  }

  /// `amount` from one account to another.
  static func between(
    id: String, userID: String, kind: Kind, intentIdentifier: String = "", description: String, from: String,
    to: String, amount: Money
  ) -> Movement {
    Movement(
      id: id, userID: userID, kind: kind, intentIdentifier: intentIdentifier, description: description,
      legs: [Leg(from, -amount), Leg(to, amount)])
  }

  /// True when the legs sum to zero in every currency.
  var isBalanced: Bool {
    Dictionary(grouping: legs, by: \.amount.currency).values.allSatisfy { legs in
      legs.reduce(Int64(0)) { $0 + $1.amount.minorUnits } == 0
    }
  }
}
