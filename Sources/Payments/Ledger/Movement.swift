internal import Foundation
internal import IntentMeshProtos
internal import SwiftProtobuf

/// One movement of money: two or more legs that sum to zero in each currency.
package struct Movement: Sendable, Equatable {
  package enum Kind: String, Sendable {
    case opening, deposit, payment, transfer, bill, scheduledHold = "scheduled-hold", scheduledSettle =
      "scheduled-settle"
  }

  /// One side: `amount` added to (positive) or taken from (negative) an account.
  package struct Leg: Sendable, Equatable {
    package var accountID: String
    package var amount: Money

    package init(_ accountID: String, _ amount: Money) {
      self.accountID = accountID
      self.amount = amount
    }
  }

  package var id: String
  package var userID: String
  package var kind: Kind
  package var intentIdentifier: String
  package var description: String
  package var legs: [Leg]

  package init(
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
  package static func between(
    id: String, userID: String, kind: Kind, intentIdentifier: String = "", description: String, from: String,
    to: String, amount: Money
  ) -> Movement {
    Movement(
      id: id, userID: userID, kind: kind, intentIdentifier: intentIdentifier, description: description,
      legs: [Leg(from, -amount), Leg(to, amount)])
  }

  /// True when the legs sum to zero in every currency.
  package var isBalanced: Bool {
    Dictionary(grouping: legs, by: \.amount.currency).values.allSatisfy { legs in
      legs.reduce(Int64(0)) { $0 + $1.amount.minorUnits } == 0
    }
  }
}
