// The web app's entry point: signs the user in (a development token from the gateway, or a pasted
// one), lists the apps and intents the gateway routes (Gateway.ListRoutes), builds the intent from
// the form, and hands it to a Conversation (conversation.js).

import { callUnary, ConnectError, developmentSecret, developmentToken } from "./connect.js";
import { Conversation } from "./conversation.js";
import { element } from "./layout.js";
import { emptyPayload, inputHint, valueFromText, withParameter } from "./payload.js";

const LIST_ROUTES = "intentmesh.gateway.v1.Gateway/ListRoutes";
const TOKEN_KEY = "intentmesh.token";
const CUSTOM_INTENT = "custom";

/** How layouts are asked for: Siri's snippet or a Maps card, at most this big (points). */
const DISPLAYS = {
  "siri-snippet": { hostedViewContext: "HOSTED_VIEW_CONTEXT_SIRI_SNIPPET", maximumSize: { width: 375, height: 640 } },
  "maps-card": { hostedViewContext: "HOSTED_VIEW_CONTEXT_MAPS_CARD", maximumSize: { width: 320, height: 480 } },
};

const byId = (id) => document.getElementById(id);

const page = {
  signedInAs: byId("signed-in-as"),
  signInForm: byId("sign-in-form"),
  userInput: byId("sign-in-user"),
  tokenForm: byId("token-form"),
  tokenInput: byId("token-input"),
  signOut: byId("sign-out"),
  error: byId("error"),
  intentForm: byId("intent-form"),
  sentenceForm: byId("sentence-form"),
  sentenceInput: byId("sentence-input"),
  appSelect: byId("app-select"),
  appSummary: byId("app-summary"),
  intentSelect: byId("intent-select"),
  intentSummary: byId("intent-summary"),
  customIntent: byId("custom-intent"),
  customClass: byId("custom-class"),
  customPayload: byId("custom-payload"),
  parameters: byId("parameters"),
  deviceLocked: byId("device-locked"),
  timeZone: byId("time-zone"),
  displayMode: byId("display-mode"),
  start: byId("start"),
  conversation: byId("conversation"),
  transcript: byId("transcript"),
  ask: byId("ask"),
  live: byId("live"),
  card: byId("card"),
};

const state = { token: "", routes: [], domains: [], conversation: null };

// Errors: one visible box, "<code>: <message>".

function showError(error) {
  const text = error instanceof ConnectError ? error.toString() : `internal: ${error?.message ?? error}`;
  page.error.textContent = text;
  page.error.hidden = false;
}

function clearError() {
  page.error.textContent = "";
  page.error.hidden = true;
}

// Signing in.

// The address `intentmesh up` printed carries this run's secret for development tokens: kept now,
// before anything else reads the address; and again when it is pasted into this tab.
developmentSecret();
window.addEventListener("hashchange", () => developmentSecret());

/** The subject and expiry a JWT claims, read without checking it (the gateway checks it); null if it is no JWT. */
function claimsOf(token) {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(part.padEnd(part.length + ((4 - (part.length % 4)) % 4), "=")));
  } catch {
    return null;
  }
}

function useToken(token) {
  state.token = token.trim();
  if (state.token) sessionStorage.setItem(TOKEN_KEY, state.token);
  else sessionStorage.removeItem(TOKEN_KEY);
  const claims = state.token ? claimsOf(state.token) : null;
  page.signedInAs.dataset.user = claims?.sub ?? "";
  if (!state.token) page.signedInAs.textContent = "Not signed in";
  else if (!claims?.sub) page.signedInAs.textContent = "Signed in with a token that is not a JWT";
  else {
    const expires = claims.exp ? ` until ${new Date(claims.exp * 1000).toLocaleTimeString()}` : "";
    page.signedInAs.replaceChildren("Signed in as ", element("strong", { children: [claims.sub] }), expires);
  }
  page.signOut.hidden = !state.token;
}

page.signInForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  clearError();
  try {
    useToken(await developmentToken(page.userInput.value.trim()));
  } catch (error) {
    showError(error);
  }
});

page.tokenForm.addEventListener("submit", (event) => {
  event.preventDefault();
  clearError();
  useToken(page.tokenInput.value);
  page.tokenInput.value = "";
  page.tokenForm.closest("details").open = false;
});

page.signOut.addEventListener("click", () => useToken(""));

// The apps and intents the gateway routes.

function selectedRoute() {
  return state.routes.find((route) => route.appName === page.appSelect.value && route.intentClass === page.intentSelect.value);
}

function option(value, text) {
  return element("option", { attributes: { value }, children: [text] });
}

function showApps() {
  const names = [...new Set([...state.domains.map((domain) => domain.appName), ...state.routes.map((route) => route.appName)])].sort();
  page.appSelect.replaceChildren(...names.map((name) => {
    const domain = state.domains.find((candidate) => candidate.appName === name);
    return option(name, domain && domain.health !== "SERVING" ? `${name} (${domain.health || "UNKNOWN"})` : name);
  }));
  showIntents();
}

function showIntents() {
  const app = page.appSelect.value;
  const domain = state.domains.find((candidate) => candidate.appName === app);
  page.appSummary.textContent = domain
    ? [domain.health || "UNKNOWN", `${domain.intentCount ?? 0} intents`, ...(domain.alternativeAppNames ?? []).map((name) => `“${name}”`)].join(" · ")
    : "";
  const routes = state.routes.filter((route) => route.appName === app).sort((a, b) => a.intentClass.localeCompare(b.intentClass));
  page.intentSelect.replaceChildren(...routes.map((route) => option(route.intentClass, route.intentClass)), option(CUSTOM_INTENT, "Another intent class…"));
  showParameters();
}

function showParameters() {
  const route = selectedRoute();
  const isCustom = page.intentSelect.value === CUSTOM_INTENT;
  page.customIntent.hidden = !isCustom;
  const declaration = route?.declaration ?? {};
  const traits = [
    declaration.requiresUserConfirmation ? "asks the user to confirm" : null,
    declaration.supportsLiveUpdates ? "sends live updates" : null,
    route?.restrictedWhileLocked ? "restricted while locked" : null,
  ].filter(Boolean);
  page.intentSummary.textContent = route ? [route.payloadType, ...traits].join(" · ") : "Type the intent class and, if you like, its payload as JSON.";
  const fields = (declaration.parameters ?? []).map(parameterField);
  page.parameters.replaceChildren(
    element("legend", { children: ["Parameters"] }),
    ...(fields.length ? fields : [element("p", { className: "hint", children: [isCustom ? "Given as JSON above." : "This intent takes no parameters."] })]),
  );
}

/** One input for a declared parameter: labelled with its label and key path, hinted with its type. */
function parameterField(parameter) {
  const id = `param-${parameter.keyPath}`;
  const [what, example] = inputHint(parameter.valueType ?? "");
  const typeName = (parameter.valueType ?? "").split(".").pop();
  const hint = `${typeName}: ${what}${parameter.isArray ? "; a list: separate values with commas" : ""}${parameter.prompt ? ` · Siri asks “${parameter.prompt}”` : ""}`;
  const attributes = { id, name: parameter.keyPath, "data-test": "parameter", "data-value-type": parameter.valueType ?? "", "aria-describedby": `${id}-hint` };
  const input = parameter.valueType === "google.protobuf.BoolValue"
    ? element("select", { attributes, children: [option("", "—"), option("yes", "yes"), option("no", "no")] })
    : element("input", { attributes: { ...attributes, type: "text", autocomplete: "off", placeholder: example ? `e.g. ${example}` : "" } });
  return element("div", {
    className: "field",
    children: [
      element("label", { attributes: { for: id }, children: [parameter.label || parameter.keyPath, " ", element("code", { children: [parameter.keyPath] })] }),
      input,
      element("small", { className: "hint", attributes: { id: `${id}-hint` }, children: [hint] }),
    ],
  });
}

page.appSelect.addEventListener("change", showIntents);
page.intentSelect.addEventListener("change", showParameters);

async function loadRoutes() {
  try {
    const answer = await callUnary(LIST_ROUTES, {});
    state.routes = answer.routes ?? [];
    state.domains = answer.domains ?? [];
    showApps();
    page.intentForm.dataset.ready = "true";
  } catch (error) {
    showError(error);
  }
}

// Starting a conversation.

/** The intent the form describes, and what the user said, for the transcript. */
function intentFromForm() {
  const appName = page.appSelect.value;
  if (page.intentSelect.value === CUSTOM_INTENT) {
    const intentClass = page.customClass.value.trim();
    if (!intentClass) throw new ConnectError("invalid_argument", "type an intent class, e.g. INSendMessageIntent");
    const intent = { intentClass, appName };
    const text = page.customPayload.value.trim();
    if (text) {
      try {
        intent.payload = JSON.parse(text);
      } catch (error) {
        throw new ConnectError("invalid_argument", `the payload is not JSON: ${error.message}`);
      }
      if (!intent.payload?.["@type"]) throw new ConnectError("invalid_argument", 'the payload needs its "@type", e.g. "type.googleapis.com/intentmesh.messaging.v1.SendMessageIntent"');
    }
    return { intent, summary: `${intentClass} with ${appName}` };
  }
  const route = selectedRoute();
  let payload = emptyPayload(route.payloadType);
  const said = [];
  for (const parameter of route.declaration?.parameters ?? []) {
    const text = byId(`param-${parameter.keyPath}`)?.value ?? "";
    if (!text.trim()) continue;
    const isJson = /^\s*[[{]/.test(text);
    const pieces = parameter.isArray && !isJson ? text.split(",").filter((piece) => piece.trim()) : [text];
    try {
      const values = pieces.map((piece) => valueFromText(piece, parameter.valueType ?? ""));
      const value = parameter.isArray && !isJson ? values : values[0];
      payload = withParameter(payload, parameter.keyPath, value);
    } catch (error) {
      throw new ConnectError("invalid_argument", `${parameter.label || parameter.keyPath}: ${error.message}`);
    }
    said.push(`${parameter.label || parameter.keyPath} ${text.trim()}`);
  }
  return { intent: { intentClass: route.intentClass, appName, payload }, summary: [`${route.intentClass} with ${appName}`, ...said].join(" · "), route };
}

/** A new conversation, the previous one's transcript and card cleared. */
function newConversation(route) {
  clearError();
  state.conversation?.stop();
  page.transcript.replaceChildren();
  page.ask.replaceChildren();
  page.card.replaceChildren();
  page.live.replaceChildren();
  page.live.hidden = true;
  delete page.live.dataset.state;
  delete page.live.dataset.updates;
  const display = DISPLAYS[page.displayMode.value] ?? DISPLAYS["siri-snippet"];
  const context = {
    locale: navigator.language || "en-US", deviceLocked: page.deviceLocked.checked, timeZone: page.timeZone.value.trim(),
  };
  state.conversation = new Conversation({
    route, routes: state.routes, token: state.token, context, display,
    view: { conversation: page.conversation, transcript: page.transcript, ask: page.ask, live: page.live, card: page.card, showError, clearError },
  });
  page.conversation.dataset.stage = "STARTED";
  return state.conversation;
}

page.sentenceForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = page.sentenceInput.value.trim();
  if (!text) return showError(new ConnectError("invalid_argument", "say what you want first"));
  return newConversation(null).startFromText(text);
});

page.intentForm.addEventListener("submit", (event) => {
  event.preventDefault();
  let started;
  try {
    started = intentFromForm();
  } catch (error) {
    return showError(error);
  }
  const route = started.route ?? state.routes.find((candidate) => candidate.intentClass === started.intent.intentClass) ?? null;
  return newConversation(route).start(started.intent, started.summary);
});

page.timeZone.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
useToken(sessionStorage.getItem(TOKEN_KEY) ?? "");
loadRoutes();
