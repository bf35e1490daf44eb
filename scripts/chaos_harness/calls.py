"""Calls through the gateway as a real client makes them: every intent a SiriKit round (Resolve,
Confirm, Handle with Confirm's token); a transport error retried with the same request and the
same intent identifier until answered or the retry budget ends. Every attempt is recorded."""
import random
import time

import grpc
from intentmesh.messaging.v1 import app_pb2_grpc as chat_app_grpc
from intentmesh.payments.v1 import app_pb2_grpc as pay_app_grpc
from intentmesh.ridebooking.v1 import app_pb2_grpc as rides_app_grpc
from intentmesh.v1 import extension_service_pb2 as ext_pb2, extension_service_pb2_grpc as ext_grpc
from intentmesh.v1 import intent_pb2

from .config import APP, RETRYABLE, SHORT
from .record import CallFailed, Stopping


class Calls:
    """Part of `Chaos` (run.py): needs self.config, self.rec, self.lock, self.run, self.seq,
    self.abort, self.in_flight, self.phase and self.stack."""

    def next_seq(self):
        with self.lock:
            self.seq += 1
            return self.seq

    def token(self):
        return f"cx{self.run}{self.next_seq():06d}"

    def identifier(self):
        return f"chaos-{self.run}-{self.next_seq():06d}"

    def rpc(self, client, domain, method, callable_, request, metadata, intent="", budget=None):
        """One call with a real client's retries: a transport failure is retried with the same
        request until answered or the budget ends. Every attempt is recorded."""
        budget = self.config.retry_budget if budget is None else budget
        began = time.monotonic()
        delay = 0.05
        client.attempts = 0
        while True:
            if self.abort.is_set():
                raise Stopping()
            client.attempts += 1
            t0 = self.rec.now()
            if method == "Handle":
                mark = object()
                with self.lock:
                    self.in_flight[domain][mark] = time.monotonic()
            try:
                answer = callable_(request, metadata=metadata, timeout=self.config.attempt_timeout)
                self.rec.ok(domain)
                if self.killed_during(domain, t0, self.rec.now()):
                    with self.rec.lock:
                        self.rec.answered_across_kill[(domain, method)] += 1
                return answer
            except grpc.RpcError as error:
                t1 = self.rec.now()
                code = error.code().name if error.code() else "UNKNOWN"
                details = error.details() or ""
                self.rec.error(domain, method, t0, t1, code, details, client.name, intent)
                retryable = code in RETRYABLE
                if not retryable:
                    with self.rec.lock:
                        self.rec.other_failures.append({"domain": domain, "method": method, "intent": intent,
                                                        "code": code, "details": details[:300], "t": round(t1, 3)})
                    raise CallFailed(code, details, False)
                if time.monotonic() - began + delay > budget:
                    with self.rec.lock:
                        self.rec.calls_failed[(domain, method)] += 1
                    raise CallFailed(code, details, True)
                time.sleep(delay)
                delay = min(delay * 2, 0.5)
            finally:
                if method == "Handle":
                    with self.lock:
                        del self.in_flight[domain][mark]

    def intent(self, intent_class, message, app, identifier=None):
        made = intent_pb2.Intent(intent_class=intent_class, identifier=identifier or self.identifier(), app_name=app)
        made.payload.Pack(message)
        return made

    def sirikit_round(self, client, user, domain, intent_class, message, response_type, effect=None,
                      time_zone="UTC"):
        """Resolve → Confirm → Handle (with Confirm's token). With `effect` (a write), the write is
        recorded with its outcome. Returns (code name, typed response, handle response) or None."""
        the_intent = self.intent(intent_class, message, APP[domain])
        context = intent_pb2.RequestContext(time_zone=time_zone, locale="en-US")
        md = user.auth
        began = time.monotonic()
        write = None
        if effect is not None:
            # The caller's dict itself: what it learns from the answer (a ride's identifier) goes in too.
            write = effect
            write.update(id=the_intent.identifier, intent=intent_class, domain=domain, user=user.id,
                         status="not_sent", t=round(self.rec.now(), 3))
            self.rec.add_write(write)
        try:
            resolved = self.rpc(client, domain, "Resolve", client.ext.Resolve,
                                ext_pb2.ResolveRequest(context=context, intent=the_intent), md, intent_class)
            if not resolved.complete:
                described = "; ".join(f"{r.parameter}: {x.WhichOneof('kind')}" for r in resolved.resolutions
                                      for x in r.results)
                self.rec.round_outcome(intent_class, "incomplete")
                with self.rec.lock:
                    self.rec.other_failures.append({"domain": domain, "method": "Resolve", "intent": intent_class,
                                                    "code": "INCOMPLETE", "details": described[:300],
                                                    "t": round(self.rec.now(), 3)})
                return None
            confirmed = self.rpc(client, domain, "Confirm", client.ext.Confirm,
                                 ext_pb2.ConfirmRequest(context=context, intent=resolved.resolved_intent), md,
                                 intent_class)
            if confirmed.response.code_name != "ready":
                self.rec.round_outcome(intent_class, f"refused:{confirmed.response.code_name}")
                if write is not None:
                    write["refused_at"] = "confirm"
                    write["code"] = confirmed.response.code_name
                return None
            if write is not None:
                write["status"] = "unacked"
            handle_began = time.monotonic()
            handle_request = ext_pb2.HandleRequest(context=context, intent=resolved.resolved_intent,
                                                   confirmation_token=confirmed.confirmation_token)
            handled = self.rpc(client, domain, "Handle", client.ext.Handle, handle_request, md, intent_class)
        except CallFailed as failed:
            self.rec.round_outcome(intent_class, "failed" if failed.retryable else f"error:{failed.code}")
            if write is not None:
                write["last_error"] = failed.code
            return None
        code = handled.response.code_name
        finished = time.monotonic()
        if write is not None:
            write["replayed"] = handled.replayed
            write["handle_attempts"] = client.attempts
        if handled.replayed:
            placed_again = client.attempts == 1 and \
                self.killed_during(domain, handle_began - self.rec.t0, finished - self.rec.t0)
            with self.rec.lock:
                self.rec.replayed += 1
                if placed_again:
                    # The gateway keeps a unary request until the domain answers and places it once
                    # more when the domain's stream or connection goes before any answer (RelayedCall's
                    # retry): with replicas the other one answers, replaying the killed one's commit.
                    self.rec.replayed_by_gateway += 1
                    if write is not None:
                        write["placed_again_by_the_gateway"] = True
                elif client.attempts == 1:  # nothing of ours answered before: an identifier reused?
                    self.rec.other_failures.append({"domain": domain, "method": "Handle", "intent": intent_class,
                                                    "code": "REPLAYED_FIRST_TIME", "t": round(self.rec.now(), 3),
                                                    "details": f"{the_intent.identifier} answered replayed on its "
                                                               "first attempt"})
        response = response_type()
        handled.response.payload.Unpack(response)
        if code != "success":
            self.rec.round_outcome(intent_class, f"refused:{code}")
            if write is not None:
                write["status"] = "refused"
                write["code"] = code
            return code, response, handled
        if write is not None:
            write["status"] = "acked"
        if self.phase == "audit":
            return code, response, handled
        self.rec.round_outcome(intent_class, "acked" if write is not None else "answered")
        with self.rec.lock:
            self.rec.latency[intent_class].append(finished - began)
            self.rec.handle_latency[intent_class].append(finished - handle_began)
        return code, response, handled

    def killed_during(self, domain, t0, t1):
        """Whether a process of `domain` (short name) was killed between t0 and t1 (self.rec.now())."""
        if not self.windows:
            return False
        with self.lock:
            return any(SHORT[w["domain"]] == domain and t0 <= w["t_kill"] <= t1 for w in self.windows)

    def make_client(self, name, index=0):
        client = type("Client", (), {})()
        client.name = name
        client.channel = grpc.insecure_channel(self.stack.endpoints["gateway"])
        client.ext = ext_grpc.IntentsExtensionStub(client.channel)
        client.chat = chat_app_grpc.UnicornChatAppStub(client.channel)
        client.pay = pay_app_grpc.UnicornPayAppStub(client.channel)
        client.rides = rides_app_grpc.UnicornRidesAppStub(client.channel)
        client.rng = random.Random(self.config.seed * 1000 + index)
        return client

