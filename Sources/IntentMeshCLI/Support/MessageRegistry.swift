import Foundation
import IntentMeshProtos
import ListsAndNotesProtos
import MessagingProtos
import PaymentsProtos
import RideBookingProtos
import SwiftProtobuf

/// The generated message types the CLI can build and read, by protobuf name. The CLI is a client:
/// unlike the gateway it may know every domain's types.
enum MessageRegistry {
  static let types: [String: any SwiftProtobuf.Message.Type] = {
    let all: [any SwiftProtobuf.Message.Type] = [
      Intentmesh_Messaging_V1_SendMessageIntent.self, Intentmesh_Messaging_V1_SendMessageIntentResponse.self,
      Intentmesh_Messaging_V1_SearchForMessagesIntent.self,
      Intentmesh_Messaging_V1_SearchForMessagesIntentResponse.self,
      Intentmesh_Messaging_V1_SetMessageAttributeIntent.self,
      Intentmesh_Messaging_V1_SetMessageAttributeIntentResponse.self,
      Intentmesh_Messaging_V1_GetVisualCodeIntent.self, Intentmesh_Messaging_V1_GetVisualCodeIntentResponse.self,
      Intentmesh_Payments_V1_SendPaymentIntent.self, Intentmesh_Payments_V1_SendPaymentIntentResponse.self,
      Intentmesh_Payments_V1_RequestPaymentIntent.self, Intentmesh_Payments_V1_RequestPaymentIntentResponse.self,
      Intentmesh_Payments_V1_SearchForBillsIntent.self, Intentmesh_Payments_V1_SearchForBillsIntentResponse.self,
      Intentmesh_Payments_V1_PayBillIntent.self, Intentmesh_Payments_V1_PayBillIntentResponse.self,
      Intentmesh_Payments_V1_TransferMoneyIntent.self, Intentmesh_Payments_V1_TransferMoneyIntentResponse.self,
      Intentmesh_Payments_V1_SearchForAccountsIntent.self, Intentmesh_Payments_V1_SearchForAccountsIntentResponse.self,
      Intentmesh_Ridebooking_V1_ListRideOptionsIntent.self,
      Intentmesh_Ridebooking_V1_ListRideOptionsIntentResponse.self,
      Intentmesh_Ridebooking_V1_RequestRideIntent.self, Intentmesh_Ridebooking_V1_RequestRideIntentResponse.self,
      Intentmesh_Ridebooking_V1_GetRideStatusIntent.self, Intentmesh_Ridebooking_V1_GetRideStatusIntentResponse.self,
      Intentmesh_Ridebooking_V1_CancelRideIntent.self, Intentmesh_Ridebooking_V1_CancelRideIntentResponse.self,
      Intentmesh_Ridebooking_V1_SendRideFeedbackIntent.self,
      Intentmesh_Ridebooking_V1_SendRideFeedbackIntentResponse.self,
      Intentmesh_Notebook_V1_CreateNoteIntent.self, Intentmesh_Notebook_V1_CreateNoteIntentResponse.self,
      Intentmesh_Notebook_V1_AppendToNoteIntent.self, Intentmesh_Notebook_V1_AppendToNoteIntentResponse.self,
      Intentmesh_Notebook_V1_SearchForNotebookItemsIntent.self,
      Intentmesh_Notebook_V1_SearchForNotebookItemsIntentResponse.self,
      Intentmesh_Notebook_V1_CreateTaskListIntent.self, Intentmesh_Notebook_V1_CreateTaskListIntentResponse.self,
      Intentmesh_Notebook_V1_AddTasksIntent.self, Intentmesh_Notebook_V1_AddTasksIntentResponse.self,
      Intentmesh_Notebook_V1_SetTaskAttributeIntent.self, Intentmesh_Notebook_V1_SetTaskAttributeIntentResponse.self,
      Intentmesh_V1_Person.self, Intentmesh_V1_SpeakableString.self, Intentmesh_V1_CurrencyAmount.self,
      Intentmesh_V1_Placemark.self, Intentmesh_V1_DateComponentsRange.self,
      Google_Protobuf_StringValue.self, Google_Protobuf_Int32Value.self, Google_Protobuf_BoolValue.self,
    ]
    return Dictionary(uniqueKeysWithValues: all.map { ($0.protoMessageName, $0) })
  }()

  /// Every type, for decoding `Any` values in JSON.
  static var typeRegistry: [any SwiftProtobuf.Message.Type] { Array(types.values) }

  static func type(named name: String) throws -> any SwiftProtobuf.Message.Type {
    guard let type = types[name] else { throw CLIError("this intentmesh does not know the message type \(name)") }
    return type
  }

  /// The type an `Any` holds.
  static func type(of any: Google_Protobuf_Any) throws -> any SwiftProtobuf.Message.Type {
    try type(named: String(any.typeURL.split(separator: "/").last ?? ""))
  }
}

/// An error the CLI reports in one line.
struct CLIError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
