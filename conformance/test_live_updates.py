"""Live updates (startSendingUpdates): a sample marked "live" streams updates of its intent, and a
client that leaves ends the stream."""
import threading

import grpc
import pytest
from intentmesh.v1 import extension_service_pb2 as ext


def test_live_sample_streams_and_cancels(domain):
    live = [s for s in domain.samples() if s.get("live")]
    if not live:
        pytest.skip("the profile has no live-updates sample")
    for sample in live:
        assert domain.declaration(sample["intent_class"]).supports_live_updates
        md = domain.md(domain.sample_user())
        intent = domain.sample_intent(sample)
        intent = domain.extension.Resolve(ext.ResolveRequest(intent=intent), metadata=md, timeout=10).resolved_intent
        if sample.get("handle"):
            token = domain.extension.Confirm(ext.ConfirmRequest(intent=intent), metadata=md, timeout=10).confirmation_token
            domain.extension.Handle(ext.HandleRequest(intent=intent, confirmation_token=token), metadata=md, timeout=15)
        stream = domain.extension.StartSendingUpdates(ext.StartSendingUpdatesRequest(intent=intent), metadata=md, timeout=30)
        first = next(stream)
        assert first.response.intent_class == intent.intent_class
        assert first.interaction.intent.identifier == intent.identifier
        timer = threading.Timer(0.2, stream.cancel)
        timer.start()
        try:
            for _ in stream:
                pass
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.CANCELLED, error
        finally:
            timer.cancel()
