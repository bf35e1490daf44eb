internal import IntentMeshProtos
internal import ProtoJSON
internal import SwiftProtobuf
internal import Understanding

#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif

/// A matched sentence as an intent: each slot's value written where its declaration says, in the
/// shape of the type it lands in (a name as a Person's display name or a SpeakableString's spoken
/// phrase, an amount as a CurrencyAmount, a date as a DateComponentsRange, an enum case by its
/// number), as proto3 JSON, then encoded by the domain's own descriptors — the gateway links none
/// of its types. The values are as said: the domain's Resolve settles them.
enum CandidatePayload {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  static func intent(
    for match: UtteranceMatcher.Match, target: UnderstandingIndex.IntentTarget, schema: ProtoSchema,
    timeZone: String
  ) throws -> Intentmesh_V1_Intent {
    var members: [(String, JSONValue)] = []
    for slot in match.slots {
      guard let declaration = target.slots[slot.name], let parameter = target.parameters[slot.name] else { continue }
      var type = parameter.valueType
      var path: [String] = []
      for step in (declaration.path ?? "").split(separator: ".").map(String.init) {
        guard let field = schema.messages[type]?.field(named: step) else {
          throw Failure(description: "\(type) has no field \(step)")
        }
        path.append(field.jsonName)
        type = Self.typeName(field)
      }
      let leaves = try Self.values(slot.value, declaration: declaration, type: type, schema: schema, timeZone: timeZone)
      let wrapped = leaves.map { leaf in path.reversed().reduce(leaf) { inner, name in .object([(name, inner)]) } }
      let jsonName = schema.messages[target.payloadType]?.field(named: slot.name)?.jsonName ?? slot.name
      members.append((jsonName, parameter.isArray ? .array(wrapped) : wrapped[0]))
    }
    let bytes = try ProtoJSONCodec(schema: schema).encode(.object(members), as: target.payloadType)
    return .with {
      $0.intentClass = match.intentClass
      $0.appName = match.appName
      $0.payload = .with {
        $0.typeURL = "type.googleapis.com/\(target.payloadType)"
        $0.value = Data(bytes)
      }
    }
  }

  /// A field's type as the interaction model check names it: a message or enum by full name, a
  /// scalar by its proto name.
  static func typeName(_ field: ProtoSchema.Field) -> String {
    if !field.typeName.isEmpty { return field.typeName }
    switch field.type {
    case .string: return "string"
    case .int32, .sint32, .sfixed32: return "int32"
    case .int64, .sint64, .sfixed64: return "int64"
    case .uint32, .fixed32: return "uint32"
    case .double: return "double"
    case .float: return "float"
    case .bool: return "bool"
    default: return "\(field.type)"
    }
  }

  /// The JSON of `value` in `type` (one per name for several people).
  static func values(
    _ value: UtteranceMatcher.Value, declaration: SlotDeclaration, type: String, schema: ProtoSchema,
    timeZone: String
  ) throws -> [JSONValue] {
    switch value {
    case .text(let text): return [try Self.text(text, type: type, vocabulary: nil)]
    case .people(let names), .texts(let names): return try names.map { try Self.text($0, type: type, vocabulary: nil) }
    case .choice(let name, let phrase):
      if declaration.kind == .vocabulary { return [try Self.text(phrase, type: type, vocabulary: name)] }
      guard let number = declaration.enumType.flatMap({ schema.enums[$0]?.byName[name] }) else {
        throw Failure(description: "no enum case \(name)")
      }
      return [schema.enums[type] != nil ? .string(name) : .number("\(number)")]
    case .number(let number):
      let text = number == number.rounded() && abs(number) < 1e15 ? "\(Int64(number))" : "\(number)"
      return [.number(text)]
    case .money(let amount):
      return [
        .object([
          ("currencyCode", .string(amount.currencyCode)), ("units", .string("\(amount.units)")),
          ("nanos", .number("\(amount.nanos)")),
        ])
      ]
    case .date(let date):
      let start = Self.fields(date.start, timeZone: timeZone)
      if type == "intentmesh.v1.DateComponents" { return [start] }
      var range: [(String, JSONValue)] = [("startDateComponents", start)]
      range.append(("endDateComponents", Self.fields(date.end ?? date.start, timeZone: timeZone)))
      return [.object(range)]
    }
  }

  /// Words as the type holds words.
  static func text(_ text: String, type: String, vocabulary: String?) throws -> JSONValue {
    switch type {
    case "intentmesh.v1.Person": return .object([("displayName", .string(text))])
    case "intentmesh.v1.SpeakableString":
      var members: [(String, JSONValue)] = [("spokenPhrase", .string(text))]
      if let vocabulary { members.append(("vocabularyIdentifier", .string(vocabulary))) }
      return .object(members)
    case "intentmesh.v1.Placemark": return .object([("name", .string(text))])
    case "string", "google.protobuf.StringValue": return .string(text)
    default: throw Failure(description: "words cannot fill \(type)")
    }
  }

  static func fields(_ fields: SpokenDate.Fields, timeZone: String) -> JSONValue {
    var members: [(String, JSONValue)] = [
      ("year", .number("\(fields.year)")), ("month", .number("\(fields.month)")), ("day", .number("\(fields.day)")),
    ]
    if let hour = fields.hour { members.append(("hour", .number("\(hour)"))) }
    if let minute = fields.minute { members.append(("minute", .number("\(minute)"))) }
    if !timeZone.isEmpty { members.append(("timeZone", .string(timeZone))) }
    return .object(members)
  }
}
