// The Connect protocol over fetch, as the gateway speaks it on its own origin: unary calls in
// proto3 JSON, server streams as enveloped JSON, errors as {code, message} (ConnectError).

/** A failed call: the Connect code ("unauthenticated", "not_found", …) and the gateway's message. */
export class ConnectError extends Error {
  constructor(code, message, details = []) {
    super(message);
    this.code = code;
    this.details = details;
  }

  /** "<code>: <message>", the way the page shows an error. */
  toString() {
    return `${this.code}: ${this.message}`;
  }
}

/** The Connect code of an HTTP status, for answers that carry no error object. */
const codeOfHttpStatus = {
  400: "invalid_argument", 401: "unauthenticated", 403: "permission_denied", 404: "unimplemented",
  408: "deadline_exceeded", 409: "aborted", 412: "failed_precondition", 413: "resource_exhausted",
  429: "unavailable", 499: "canceled", 502: "unavailable", 503: "unavailable", 504: "unavailable",
};

function headers(contentType, token) {
  const all = { "content-type": contentType };
  if (token) all.authorization = `Bearer ${token}`;
  return all;
}

async function errorOf(response) {
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    if (body && typeof body.code === "string") return new ConnectError(body.code, body.message ?? "", body.details ?? []);
  } catch {
    // Not Connect's error object: fall back to the HTTP status.
  }
  return new ConnectError(codeOfHttpStatus[response.status] ?? "unknown", text.trim() || `HTTP ${response.status}`);
}

async function post(path, init) {
  try {
    return await fetch(path, { method: "POST", ...init });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ConnectError("unavailable", `cannot reach the gateway: ${error.message}`);
  }
}

/** Calls a unary method, e.g. "intentmesh.gateway.v1.Gateway/Interact"; resolves to the response message. */
export async function callUnary(method, request, { token, signal } = {}) {
  const response = await post(`/${method}`, {
    headers: headers("application/json", token), body: JSON.stringify(request), signal,
  });
  if (!response.ok) throw await errorOf(response);
  return response.json();
}

/** One envelope: a flags byte, a 4-byte big-endian length, then that many bytes. */
function envelope(flags, bytes) {
  const framed = new Uint8Array(5 + bytes.length);
  framed[0] = flags;
  new DataView(framed.buffer).setUint32(1, bytes.length);
  framed.set(bytes, 5);
  return framed;
}

const END_OF_STREAM = 0x02;

/**
 * Calls a server-streaming method; yields each response message as it arrives and returns when the
 * stream ends (throws a ConnectError when it ends with an error). Aborting `signal` leaves the stream.
 */
export async function* callServerStream(method, request, { token, signal } = {}) {
  const body = envelope(0, new TextEncoder().encode(JSON.stringify(request)));
  const response = await post(`/${method}`, { headers: headers("application/connect+json", token), body, signal });
  if (!response.ok) throw await errorOf(response);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = new Uint8Array(0);
  try {
    for (;;) {
      while (buffered.length >= 5) {
        const length = new DataView(buffered.buffer, buffered.byteOffset, 5).getUint32(1);
        if (buffered.length < 5 + length) break;
        const flags = buffered[0];
        const message = JSON.parse(decoder.decode(buffered.subarray(5, 5 + length)) || "{}");
        buffered = buffered.slice(5 + length);
        if (flags & END_OF_STREAM) {
          if (message.error) {
            throw new ConnectError(message.error.code ?? "unknown", message.error.message ?? "", message.error.details);
          }
          return;
        }
        yield message;
      }
      const { value, done } = await reader.read();
      if (done) throw new ConnectError("internal", "the stream ended without its end-of-stream message");
      const joined = new Uint8Array(buffered.length + value.length);
      joined.set(buffered);
      joined.set(value, buffered.length);
      buffered = joined;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

const DEV_SECRET_KEY = "intentmesh.devSecret";

/**
 * The secret of this run's development tokens: `intentmesh up` prints it in the web app's address
 * (`…/#dev=<secret>`, a fragment the browser never sends). Taken from the address once, kept for
 * this origin, and removed from the address bar.
 */
export function developmentSecret() {
  const given = new URLSearchParams(location.hash.slice(1)).get("dev");
  if (given) {
    localStorage.setItem(DEV_SECRET_KEY, given);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return localStorage.getItem(DEV_SECRET_KEY) ?? "";
}

/** A development token for `user` from the gateway's `POST /dev/token` (only on a loopback gateway, with the secret). */
export async function developmentToken(user) {
  const all = headers("application/json");
  const secret = developmentSecret();
  if (secret) all["x-intentmesh-dev-secret"] = secret;
  const response = await post("/dev/token", { headers: all, body: JSON.stringify({ user }) });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()).token;
}
