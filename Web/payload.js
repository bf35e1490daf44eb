// An intent's payload as proto3 JSON (an Any: {"@type": …, fields}), and the values the user types
// for its parameters, built as the CLI builds them (Sources/IntentMeshCLI/Support/PayloadEditor.swift).

const TYPE_URL_PREFIX = "type.googleapis.com/";

/** An empty payload of the protobuf message `payloadType`, e.g. "intentmesh.messaging.v1.SendMessageIntent". */
export function emptyPayload(payloadType) {
  return { "@type": TYPE_URL_PREFIX + payloadType };
}

/** The full protobuf name in an Any's "@type". */
export function typeName(any) {
  return String(any?.["@type"] ?? "").split("/").pop();
}

/** "85 USD", "USD 85.50", "85.5" (USD) → a CurrencyAmount in JSON, exactly (no floating point). */
export function currencyAmount(text) {
  const parts = text.trim().split(/\s+/);
  const currencyCode = (parts.find((part) => /^[A-Za-z]{3}$/.test(part)) ?? "USD").toUpperCase();
  const number = parts.find((part) => /^-?\d+(\.\d*)?$/.test(part));
  if (number === undefined) throw new Error(`"${text}" is not an amount such as "85 USD"`);
  const [whole, fraction = ""] = number.split(".");
  const digits = Number((fraction.slice(0, 9)).padEnd(9, "0"));
  const nanos = number.startsWith("-") ? -digits : digits;
  return { currencyCode, units: String(BigInt(whole)), nanos };
}

/** The JSON value of what the user typed for a parameter of `valueType`; JSON ({…} or […]) is taken as is. */
export function valueFromText(text, valueType) {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed);
    } catch (error) {
      throw new Error(`"${trimmed}" is not JSON: ${error.message}`);
    }
  }
  switch (valueType) {
    case "intentmesh.v1.Person": return { displayName: trimmed };
    case "intentmesh.v1.SpeakableString": return { spokenPhrase: trimmed };
    case "intentmesh.v1.Placemark": return { name: trimmed };
    case "intentmesh.v1.CurrencyAmount": return currencyAmount(trimmed);
    case "google.protobuf.Int32Value": return /^-?\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
    case "google.protobuf.DoubleValue": return trimmed !== "" && !Number.isNaN(Number(trimmed)) ? Number(trimmed) : trimmed;
    case "google.protobuf.BoolValue": return ["yes", "true", "1", "y"].includes(trimmed.toLowerCase());
    default: return trimmed;
  }
}

/** The value of an offered option (a disambiguation choice): without "@type"; a wrapper's plain value. */
export function optionValue(any) {
  if (any === null || typeof any !== "object") return any;
  const { "@type": type, ...fields } = any;
  if (typeName({ "@type": type }).startsWith("google.protobuf.") && "value" in fields) return fields.value;
  return fields;
}

/**
 * A copy of `payload` with `keyPath` set to `value`. Array parameters: the element at `index` is
 * replaced, or the value is appended; `replacing` makes the array just this value.
 */
export function withParameter(payload, keyPath, value, { isArray = false, index = null, replacing = false } = {}) {
  const copy = structuredClone(payload);
  if (!isArray) {
    copy[keyPath] = value;
    return copy;
  }
  const values = replacing || !Array.isArray(copy[keyPath]) ? [] : copy[keyPath];
  if (index !== null && index < values.length) values[index] = value;
  else values.push(value);
  copy[keyPath] = values;
  return copy;
}

/** Short words for the form: what a parameter of `valueType` takes, and an example. */
export function inputHint(valueType) {
  const hints = {
    "intentmesh.v1.Person": ["a person's name", "Diana"],
    "intentmesh.v1.SpeakableString": ["a name or phrase", ""],
    "intentmesh.v1.Placemark": ["a place", "300 Post Street"],
    "intentmesh.v1.CurrencyAmount": ["an amount and currency", "5 USD"],
    "google.protobuf.StringValue": ["text", ""],
    "google.protobuf.Int32Value": ["a number", ""],
    "google.protobuf.DoubleValue": ["a number", ""],
    "google.protobuf.BoolValue": ["yes or no", ""],
  };
  return hints[valueType] ?? [`JSON of ${valueType.split(".").pop()}`, "{…}"];
}
