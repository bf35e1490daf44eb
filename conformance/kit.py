"""What the conformance tests share: the domain under test as its reflection and Describe show it,
tokens for its users, dynamic messages of its own types, and status checks.

The kit knows only the contract (Protos/intentmesh/v1 and grpc's health and reflection): a domain's
own types (its payloads, responses, app requests) come from the domain's server reflection, so a
domain written in any language, with types the kit has never seen, is checked the same way."""
import json
import os
import shlex
import subprocess
import time
import uuid

import grpc
from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor

from grpc_reflection.v1alpha import reflection_pb2  # the same messages as grpc.reflection.v1, on the wire
from intentmesh.v1 import extension_service_pb2_grpc, intent_pb2

#: The reflection service the kit asks: v1, the standard one (grpcurl asks it first).
REFLECTION_METHOD = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"

WRAPPERS = {
    FieldDescriptor.TYPE_DOUBLE: "google.protobuf.DoubleValue",
    FieldDescriptor.TYPE_FLOAT: "google.protobuf.FloatValue",
    FieldDescriptor.TYPE_INT64: "google.protobuf.Int64Value",
    FieldDescriptor.TYPE_UINT64: "google.protobuf.UInt64Value",
    FieldDescriptor.TYPE_INT32: "google.protobuf.Int32Value",
    FieldDescriptor.TYPE_UINT32: "google.protobuf.UInt32Value",
    FieldDescriptor.TYPE_BOOL: "google.protobuf.BoolValue",
    FieldDescriptor.TYPE_STRING: "google.protobuf.StringValue",
    FieldDescriptor.TYPE_BYTES: "google.protobuf.BytesValue",
    FieldDescriptor.TYPE_ENUM: "google.protobuf.Int32Value",
}


class Reflection:
    """The domain's own descriptors, fetched with grpc.reflection.v1 and kept in a private pool."""

    def __init__(self, channel):
        self._info = channel.stream_stream(
            REFLECTION_METHOD,
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )
        self.pool = descriptor_pool.DescriptorPool()
        self._added = set()

    def _ask(self, request):
        answers = list(self._info(iter([request]), timeout=10))
        assert len(answers) == 1, f"reflection answered {len(answers)} messages to one request"
        return answers[0]

    def services(self):
        answer = self._ask(reflection_pb2.ServerReflectionRequest(list_services=""))
        assert answer.HasField("list_services_response"), f"list_services: {answer}"
        return [service.name for service in answer.list_services_response.service]

    def file_containing(self, symbol):
        """Adds the file that defines `symbol` (and its imports) to the pool; None when the server
        does not know the symbol, else the list of file names it sent."""
        answer = self._ask(reflection_pb2.ServerReflectionRequest(file_containing_symbol=symbol))
        if answer.HasField("error_response"):
            return None
        files = [descriptor_pb2.FileDescriptorProto.FromString(raw) for raw in answer.file_descriptor_response.file_descriptor_proto]
        self._add_all(files)
        return [file.name for file in files]

    def _add_all(self, files):
        by_name = {file.name: file for file in files}

        def add(file):
            if file.name in self._added:
                return
            for dependency in file.dependency:
                if dependency in by_name:
                    add(by_name[dependency])
                elif dependency not in self._added:
                    self._fetch_file(dependency)
            self.pool.Add(file)
            self._added.add(file.name)

        for file in files:
            add(file)

    def _fetch_file(self, name):
        answer = self._ask(reflection_pb2.ServerReflectionRequest(file_by_filename=name))
        assert not answer.HasField("error_response"), f"reflection does not serve {name}, an import"
        files = [descriptor_pb2.FileDescriptorProto.FromString(raw) for raw in answer.file_descriptor_response.file_descriptor_proto]
        self._add_all(files)

    def _find(self, find, full_name, what):
        """`find(full_name)` in the pool, fetching the defining file first when it is not there yet."""
        try:
            return find(full_name)
        except KeyError:
            assert self.file_containing(full_name), f"reflection does not know the {what} {full_name}"
            return find(full_name)

    def message(self, full_name):
        """The descriptor of `full_name` (fetched on first use)."""
        return self._find(self.pool.FindMessageTypeByName, full_name, "message")

    def enum(self, full_name):
        """The descriptor of the enum `full_name` (fetched on first use)."""
        return self._find(self.pool.FindEnumTypeByName, full_name, "enum")

    def new(self, full_name, json_text=None):
        """A message of `full_name`, empty or parsed from proto3 JSON."""
        made = message_factory.GetMessageClass(self.message(full_name))()
        if json_text is not None:
            json_format.Parse(json_text if isinstance(json_text, str) else json.dumps(json_text), made,
                              descriptor_pool=self.pool)
        return made

    def service(self, full_name):
        return self._find(self.pool.FindServiceByName, full_name, "service")


class Tokens:
    """Bearer tokens for any user: signed with the stack's local identity (`--identity DIR`, the
    folder `intentmesh up` keeps: signing-key.pem + jwks.json), or printed by a command
    (`--token-command 'mytool token {user}'`)."""

    def __init__(self, identity=None, command=None, issuer="intentmesh", audience="intentmesh"):
        self._identity = identity
        self._command = command
        self.issuer = issuer
        self.audience = audience
        self._cache = {}

    @property
    def can_sign(self):
        return self._identity is not None

    def key(self):
        """The identity's private key and key id, read once."""
        if getattr(self, "_key", None) is None:
            self._key = self._read_key()
        return self._key

    def _read_key(self):
        from cryptography.hazmat.primitives import serialization

        with open(os.path.join(self._identity, "signing-key.pem"), "rb") as pem:
            private = serialization.load_pem_private_key(pem.read(), password=None)
        with open(os.path.join(self._identity, "jwks.json")) as jwks:
            kid = json.load(jwks)["keys"][0]["kid"]
        return private, kid

    def signed(self, claims, kid=None, key=None, without_kid=False):
        """Any claims, signed with the identity's key (tests of expired, foreign or odd tokens);
        `without_kid`: a header that names no key."""
        import jwt

        private, own_kid = self.key()
        headers = {} if without_kid else {"kid": kid or own_kid}
        return jwt.encode(claims, key or private, algorithm="ES256", headers=headers)

    @property
    def jwks_path(self):
        """The JWKS file the stack's services read (--identity's jwks.json)."""
        return os.path.join(self._identity, "jwks.json") if self._identity else None

    def claims(self, user, ttl=3600, now=None):
        now = int(now if now is not None else time.time())
        return {"sub": user, "iss": self.issuer, "aud": [self.audience], "iat": now, "nbf": now, "exp": now + ttl}

    def token(self, user):
        if user not in self._cache:
            if self._command:
                done = subprocess.run(
                    shlex.split(self._command.replace("{user}", user)), capture_output=True, text=True, check=True
                )
                self._cache[user] = done.stdout.strip()
            elif self._identity:
                self._cache[user] = self.signed(self.claims(user))
            else:
                raise AssertionError("no way to make tokens: pass --identity DIR or --token-command")
        return self._cache[user]

    def metadata(self, user):
        return [("authorization", f"Bearer {self.token(user)}")]


class Domain:
    """The domain under test: its channel, manifest, reflection, profile and tokens."""

    def __init__(self, target, channel, manifest, reflection, profile, tokens):
        self.target = target
        self.channel = channel
        self.extension = extension_service_pb2_grpc.IntentsExtensionStub(channel)
        self.manifest = manifest
        self.reflection = reflection
        self.profile = profile
        self.tokens = tokens
        self.user = profile.get("user") or f"conformance-{uuid.uuid4().hex[:10]}"
        self.other_user = f"conformance-other-{uuid.uuid4().hex[:10]}"

    def declaration(self, intent_class):
        return next(d for d in self.manifest.intents if d.intent_class == intent_class)

    def payload(self, intent_class, json_payload=None):
        return self.reflection.new(self.declaration(intent_class).payload_type, json_payload)

    def intent(self, intent_class, payload=None, identifier=None):
        made = intent_pb2.Intent(intent_class=intent_class, identifier=identifier or str(uuid.uuid4()))
        made.payload.Pack(payload if payload is not None else self.payload(intent_class))
        return made

    def md(self, user=None):
        return self.tokens.metadata(user or self.user)

    def samples(self):
        return self.profile.get("samples", [])

    def sample_user(self):
        """The user a sample runs as: the profile's `user`, or a new user each time, made with the
        profile's `setup` calls (e.g. the app's SignUp) — so that no run depends on an earlier one."""
        if self.profile.get("user"):
            return self.profile["user"]
        user = f"conformance-{uuid.uuid4().hex[:12]}"
        for call in self.profile.get("setup", []):
            service_name, method_name = call["method"].strip("/").split("/")
            method = self.reflection.service(service_name).methods_by_name[method_name]
            request = self.reflection.new(method.input_type.full_name, call.get("request", {}))
            self.unary(call["method"], request, method.output_type.full_name, metadata=self.md(user))
        return user

    def sample_intent(self, sample, identifier=None, answered=None):
        """The sample's intent; in a follow-up step, "{response.rideStatus.rideIdentifier}" in its
        payload is read from `answered`, the typed response of the step it follows."""
        payload = sample.get("payload", {})
        if answered is not None:
            payload = filled(payload, json_format.MessageToDict(answered))
        return self.intent(sample["intent_class"], self.payload(sample["intent_class"], payload), identifier)

    def typed_response(self, intent_response):
        """The typed response (a dynamic message) inside an IntentResponse."""
        typed = self.reflection.new(type_name(intent_response.payload))
        assert intent_response.payload.Unpack(typed)
        return typed

    def unary(self, method, request_message, response_type, metadata=None):
        """Calls any unary method by its full path with dynamic messages."""
        call = self.channel.unary_unary(
            method,
            request_serializer=lambda message: message.SerializeToString(),
            response_deserializer=lambda raw: self.reflection.new(response_type).__class__.FromString(raw),
        )
        return call(request_message, metadata=metadata, timeout=10)


def filled(template, response_tree):
    """`template` with every "{response.a.b}" string replaced by the value at a.b in the response."""
    if isinstance(template, dict):
        return {key: filled(value, response_tree) for key, value in template.items()}
    if isinstance(template, list):
        return [filled(value, response_tree) for value in template]
    if isinstance(template, str) and template.startswith("{response.") and template.endswith("}"):
        value = response_tree
        for name in template[len("{response."):-1].split("."):
            assert isinstance(value, dict) and name in value, f"the response has no {template[1:-1]}: {response_tree}"
            value = value[name]
        return value
    return template


def refused(call, code, *fragments):
    """Runs `call`; it must fail with `code`, and its message must name each fragment."""
    try:
        answer = call()
    except grpc.RpcError as error:
        assert error.code() == code, f"expected {code.name}, got {error.code().name}: {error.details()}"
        for fragment in fragments:
            assert fragment.lower() in (error.details() or "").lower(), (
                f"the {code.name} message should name {fragment!r}: {error.details()!r}"
            )
        return error
    raise AssertionError(f"expected {code.name}, got an answer: {answer}")


def type_name(any_value):
    return any_value.type_url.rsplit("/", 1)[-1]


def key_path_problem(key_path, descriptor):
    """Why `key_path` ("a", "a.b", "a[0].b") is not a path through `descriptor`'s fields, or None."""
    current = descriptor
    parts = key_path.split(".")
    for position, part in enumerate(parts):
        name, _, index = part.partition("[")
        if not name or (index and not (index.endswith("]") and index[:-1].isdigit())):
            return f"malformed segment {part!r}"
        if current is None:
            return f"{parts[position - 1]!r} is not a message"
        field = next((f for f in current.fields if f.json_name == name), None)
        if field is None:
            return f"{current.full_name} has no field with JSON name {name!r}"
        current = field.message_type if field.type == FieldDescriptor.TYPE_MESSAGE else None
    return None


def is_repeated(field):
    """Whether a field is a list (protobuf 5 to 7: `is_repeated`; older: its label)."""
    repeated = getattr(field, "is_repeated", None)
    return repeated if repeated is not None else field.label == FieldDescriptor.LABEL_REPEATED


def value_type_of(field):
    """The value type a parameter of this field declares: the message's name, or a wrapper."""
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return field.message_type.full_name
    return WRAPPERS[field.type]


def packed(message):
    value = any_pb2.Any()
    value.Pack(message)
    return value
