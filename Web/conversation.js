// One conversation with Siri, walked through the gateway's Interact as the CLI's `intentmesh chat`
// walks it (Sources/IntentMeshCLI/Commands/ChatCommand.swift): ask for a missing value, offer the
// choices of a disambiguation, take a yes or no, then draw the layout of the answer, and follow its
// live updates where the app sends them (IntentsExtension.StartSendingUpdates).

import { callServerStream, callUnary, ConnectError } from "./connect.js";
import { drawCard, element } from "./layout.js";
import { emptyPayload, optionValue, valueFromText, withParameter } from "./payload.js";

const INTERACT = "intentmesh.gateway.v1.Gateway/Interact";
const LAYOUT = "intentmesh.gateway.v1.Gateway/Layout";
const START_SENDING_UPDATES = "intentmesh.v1.IntentsExtension/StartSendingUpdates";

/**
 * The intent whose live updates follow another's: SiriKit sends a booked ride's progress through
 * INGetRideStatusIntent's startSendingUpdates, not through the request.
 */
const LIVE_FOLLOW_UP = { INRequestRideIntent: "INGetRideStatusIntent" };

const TURN_LIMIT = 50;

export class Conversation {
  /**
   * @param route the gateway's Route of the intent (its declaration: parameters, labels, live updates)
   * @param routes every route, to find a follow-up intent for live updates
   * @param token the user's bearer token
   * @param context the RequestContext of every call
   * @param display the Display layouts are made for
   * @param view the page's elements: transcript, ask, card, live, and showError(error) / clearError()
   */
  constructor({ route, routes, token, context, display, view }) {
    this.route = route;
    this.routes = routes;
    this.token = token;
    this.display = display;
    this.view = view;
    this.request = { context, intent: null, userConfirmed: false, confirmedParameters: [], display };
    this.aborter = new AbortController();
    this.turns = 0;
    this.ended = false;
  }

  /** Starts with the intent as the user gave it; `summary` is what the user said, for the transcript. */
  async start(intent, summary) {
    this.request.intent = intent;
    this.say("user", summary);
    await this.send();
  }

  /**
   * Starts from words: the gateway understands them (Understand) and answers the first turn of the
   * intent they say; `appName` is the app the user picked when two could do it.
   */
  async startFromText(text, appName = "") {
    if (!appName) this.say("user", text);
    this.request.text = text;
    this.lastText = text;
    this.request.intent = appName ? { appName } : null;
    await this.send();
  }

  /** Stops the conversation: leaves a pending call and the live updates. */
  stop() {
    this.ended = true;
    this.aborter.abort();
  }

  declarationOf(keyPath) {
    return (this.route?.declaration?.parameters ?? []).find((parameter) => parameter.keyPath === keyPath);
  }

  get labels() {
    return new Map((this.route?.declaration?.parameters ?? []).map((parameter) => [parameter.keyPath, parameter.label]));
  }

  /** Adds a line to the transcript: who ("app" or "user") said what. */
  say(speaker, text) {
    const who = speaker === "app" ? (this.appName ?? this.route?.appName ?? "Siri") : "You";
    this.view.transcript.append(
      element("li", {
        className: `utterance from-${speaker}`, attributes: { "data-speaker": speaker },
        children: [element("span", { className: "speaker", children: [who] }), element("span", { className: "words", children: [text] })],
      }),
    );
  }

  /** One turn: sends the request as it stands and shows what the gateway answers. */
  async send() {
    if (this.ended) return;
    this.turns += 1;
    if (this.turns > TURN_LIMIT) return this.fail(new ConnectError("aborted", `the conversation did not finish in ${TURN_LIMIT} turns`));
    this.view.clearError();
    this.busy(true);
    let turn;
    try {
      turn = await callUnary(INTERACT, this.request, { token: this.token, signal: this.aborter.signal });
    } catch (error) {
      return this.fail(error);
    } finally {
      this.busy(false);
    }
    if (this.ended) return;
    const fromText = Boolean(this.request.text);
    delete this.request.text;
    if (fromText && turn.intent?.intentClass) {
      // The intent the words said: its route (parameters, labels) from the routing table.
      this.route = this.routes.find((route) => route.intentClass === turn.intent.intentClass && route.appName === turn.appName)
        ?? this.routes.find((route) => route.intentClass === turn.intent.intentClass) ?? this.route;
    }
    this.appName = turn.appName || this.appName;
    this.request.intent = turn.intent ?? this.request.intent; // identifier included: Handle is exactly-once
    this.show(turn);
  }

  busy(isBusy) {
    this.view.ask.setAttribute("aria-busy", String(isBusy));
    for (const control of this.view.ask.querySelectorAll("button, input")) control.disabled = isBusy;
  }

  fail(error) {
    if (error?.name === "AbortError") return;
    this.view.conversation.dataset.stage = "ERROR";
    this.view.showError(error);
    this.view.ask.replaceChildren();
  }

  show(turn) {
    const stage = turn.stage ?? "STAGE_UNSPECIFIED";
    this.view.conversation.dataset.stage = stage;
    const understood = turn.candidates?.[0];
    if (understood && stage !== "STAGE_NEEDS_APP" && stage !== "STAGE_NOT_UNDERSTOOD") this.sayUnderstood(understood);
    switch (stage) {
      case "STAGE_NOT_UNDERSTOOD":
        this.say("app", turn.prompt || "Sorry, I can't help with that.");
        this.view.ask.replaceChildren();
        this.ended = true;
        return undefined;
      case "STAGE_NEEDS_APP":
        this.say("app", turn.prompt || "Which app?");
        return this.askForApp(turn);
      case "STAGE_NEEDS_PARAMETER":
        this.say("app", turn.prompt || `${turn.parameter}?`);
        return this.askForParameter(turn);
      case "STAGE_NEEDS_CONFIRMATION": {
        const question = turn.prompt || this.route?.declaration?.confirmationPrompt || "Do you want to continue?";
        this.drawLayout(turn);
        this.say("app", question);
        return this.askYesNo(question, () => {
          this.request.userConfirmed = true;
          this.request.confirmationToken = turn.confirmationToken ?? "";
        }, "confirm");
      }
      case "STAGE_DONE":
      case "STAGE_FAILED": {
        const codeName = turn.response?.codeName || "no response";
        this.say("app", stage === "STAGE_DONE" ? `Done (${codeName})` : `Failed (${codeName})`);
        this.view.ask.replaceChildren();
        this.drawLayout(turn);
        this.ended = stage === "STAGE_FAILED";
        if (stage === "STAGE_DONE") this.followLiveUpdates(turn);
        return undefined;
      }
      default:
        return this.fail(new ConnectError("internal", `the gateway answered stage ${stage}`));
    }
  }

  /** What the words were taken to say: the app, the intent and each value as said. */
  sayUnderstood(candidate) {
    const values = (candidate.slots ?? []).map((slot) => `${this.labels.get(slot.name) || slot.name}: ${slot.text}`);
    const intent = candidate.intent?.intentClass ?? "";
    this.view.transcript.append(
      element("li", {
        className: "understood", attributes: { "data-test": "understood" },
        children: [`${candidate.intent?.appName ?? ""} · ${intent}${values.length ? ` · ${values.join(" · ")}` : ""}`],
      }),
    );
  }

  /** The apps that could do it, as buttons: the words go again to the one picked. */
  askForApp(turn) {
    const text = this.lastText;
    const apps = (turn.candidates ?? []).map((candidate) => candidate.intent?.appName).filter(Boolean);
    const buttons = apps.map((app) => {
      const button = element("button", { className: "choice", attributes: { type: "button", "data-test": "app-choice" }, children: [app] });
      button.addEventListener("click", () => {
        this.say("user", app);
        this.startFromText(text, app);
      });
      return button;
    });
    this.view.ask.replaceChildren(
      element("p", { className: "prompt", attributes: { id: "prompt" }, children: [turn.prompt || "Which app?"] }),
      element("div", { className: "choices", attributes: { role: "group", "aria-label": "Apps" }, children: buttons }),
    );
  }

  drawLayout(turn) {
    this.view.card.replaceChildren(
      drawCard(turn.layout, {
        appName: turn.appName, stage: turn.stage, response: turn.response,
        hostedViewContext: this.display.hostedViewContext, labels: this.labels,
      }),
    );
  }

  /** Sets a parameter of the intent's payload to `value` (the element of an array parameter at `index`). */
  setParameter(keyPath, value, { index = null, replacing = false } = {}) {
    const isArray = this.declarationOf(keyPath)?.isArray ?? false;
    const payload = this.request.intent.payload ?? emptyPayload(this.route?.payloadType ?? "");
    this.request.intent = {
      ...this.request.intent, payload: withParameter(payload, keyPath, value, { isArray, index: isArray ? index : null, replacing }),
    };
  }

  askForParameter(turn) {
    const keyPath = turn.parameter;
    const index = turn.elementIndex ?? 0;
    const result = turn.result ?? {};
    const prompt = element("p", { className: "prompt", attributes: { id: "prompt" }, children: [turn.prompt || keyPath] });
    if (result.disambiguation) {
      const choices = (result.disambiguation.options ?? []).map((option, number) =>
        element("button", {
          className: "choice", attributes: { type: "button", "data-test": "choice", "data-index": String(number) },
          children: [option.displayText || `Option ${number + 1}`],
        }),
      );
      choices.forEach((button, number) => button.addEventListener("click", () => {
        const option = result.disambiguation.options[number];
        this.say("user", option.displayText);
        this.setParameter(keyPath, optionValue(option.value), { index });
        this.send();
      }));
      this.view.ask.replaceChildren(prompt, element("div", { className: "choices", attributes: { role: "group", "aria-label": turn.prompt || "Choices" }, children: choices }));
      return;
    }
    if (result.confirmationRequired) {
      const guessed = result.confirmationRequired.value?.displayText;
      if (guessed) prompt.append(element("span", { className: "guess", children: [` (${guessed})`] }));
      this.view.ask.replaceChildren(prompt);
      this.askYesNo(null, () => {
        this.request.confirmedParameters = [...this.request.confirmedParameters, keyPath];
      }, "guess", () => {
        this.say("app", "What should it be instead?");
        this.askForText(keyPath, "What should it be instead?", { index });
      });
      return;
    }
    const reason = result.unsupported?.reason?.message;
    const question = result.needsValue ? turn.prompt : reason ? `${reason} Another value?` : turn.prompt;
    this.askForText(keyPath, question || keyPath, result.needsValue ? { replacing: true } : { index });
  }

  /** An input for the parameter's value and a Send button. */
  askForText(keyPath, question, placement) {
    const declaration = this.declarationOf(keyPath);
    const input = element("input", {
      attributes: { id: "answer-input", type: "text", autocomplete: "off", "aria-describedby": "prompt", name: keyPath },
    });
    const label = element("label", {
      className: "visually-hidden", attributes: { for: "answer-input" },
      children: [`${declaration?.label || keyPath} (${declaration?.valueType ?? "value"})`],
    });
    const send = element("button", { className: "primary", attributes: { id: "answer-send", type: "submit" }, children: ["Send"] });
    const form = element("form", { className: "answer", attributes: { id: "answer-form" }, children: [label, input, send] });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input.value;
      if (!text.trim()) return input.focus();
      let value;
      try {
        value = valueFromText(text, declaration?.valueType ?? "");
      } catch (error) {
        return this.view.showError(new ConnectError("invalid_argument", error.message));
      }
      this.say("user", text);
      this.setParameter(keyPath, value, placement);
      return this.send();
    });
    const prompt = element("p", { className: "prompt", attributes: { id: "prompt" }, children: [question] });
    this.view.ask.replaceChildren(prompt, form);
    input.focus();
  }

  /** Yes and No buttons. Yes: `onYes` then the next turn. No: `onNo`, or the conversation ends. */
  askYesNo(question, onYes, kind, onNo) {
    const yes = element("button", { className: "primary", attributes: { id: "confirm-yes", type: "button", "data-kind": kind }, children: ["Yes"] });
    const no = element("button", { attributes: { id: "confirm-no", type: "button", "data-kind": kind }, children: ["No"] });
    yes.addEventListener("click", () => {
      this.say("user", "Yes");
      onYes();
      this.send();
    });
    no.addEventListener("click", () => {
      this.say("user", "No");
      if (onNo) return onNo();
      this.say("app", "Cancelled.");
      this.view.conversation.dataset.stage = "CANCELLED";
      this.view.ask.replaceChildren();
      return this.stop();
    });
    const buttons = element("div", { className: "choices", attributes: { role: "group", "aria-label": "Yes or no" }, children: [yes, no] });
    if (question) this.view.ask.replaceChildren(element("p", { className: "prompt", attributes: { id: "prompt" }, children: [question] }), buttons);
    else this.view.ask.append(buttons);
    yes.focus();
  }

  /** The intent to follow after `turn`, and its route: the intent itself, or its follow-up (a ride's status). */
  liveTarget(turn) {
    if (this.route?.declaration?.supportsLiveUpdates) return { route: this.route, intent: turn.intent };
    const followUp = LIVE_FOLLOW_UP[turn.intent?.intentClass];
    const route = this.routes.find((candidate) => candidate.intentClass === followUp && candidate.appName === this.route?.appName);
    if (!route?.declaration?.supportsLiveUpdates) return null;
    return { route, intent: { intentClass: route.intentClass, appName: turn.intent.appName, payload: emptyPayload(route.payloadType) } };
  }

  /** Redraws the card from each live update until the stream ends or the user stops it. */
  async followLiveUpdates(turn) {
    const target = this.liveTarget(turn);
    if (!target) return;
    const { live } = this.view;
    const stopButton = element("button", { attributes: { id: "live-stop", type: "button" }, children: ["Stop"] });
    const status = element("span", { attributes: { id: "live-status-text" }, children: [`Following ${target.intent.intentClass}…`] });
    stopButton.addEventListener("click", () => this.stop());
    live.replaceChildren(element("span", { className: "live-dot", attributes: { "aria-hidden": "true" } }), status, stopButton);
    live.hidden = false;
    live.dataset.state = "following";
    let count = 0;
    const { context } = this.request;
    try {
      const updates = callServerStream(START_SENDING_UPDATES, { context, intent: target.intent }, { token: this.token, signal: this.aborter.signal });
      for await (const update of updates) {
        count += 1;
        const answer = await callUnary(LAYOUT, { context, interactions: [update.interaction], display: this.display }, { token: this.token, signal: this.aborter.signal });
        const time = update.interaction?.date ? new Date(update.interaction.date).toLocaleTimeString() : "";
        const line = `Live update ${count}${time ? ` · ${time}` : ""} · ${update.response?.codeName ?? ""}`;
        this.view.card.replaceChildren(
          drawCard(answer.layouts?.[0], {
            appName: this.appName, stage: "LIVE", response: update.response,
            hostedViewContext: this.display.hostedViewContext, labels: this.labels, live: line,
          }),
        );
        status.textContent = `Following ${target.intent.intentClass}: ${count} update${count === 1 ? "" : "s"}`;
        live.dataset.updates = String(count);
      }
      status.textContent = `Live updates ended after ${count} update${count === 1 ? "" : "s"}.`;
      live.dataset.state = "ended";
    } catch (error) {
      if (error?.name === "AbortError") {
        status.textContent = `Stopped following after ${count} update${count === 1 ? "" : "s"}.`;
        live.dataset.state = "stopped";
      } else {
        status.textContent = `Live updates failed after ${count} update${count === 1 ? "" : "s"}.`;
        live.dataset.state = "failed";
        this.view.showError(error);
      }
    } finally {
      stopButton.remove();
      live.querySelector(".live-dot")?.remove();
    }
  }
}
