"""identity: the JWKS key set and the token verifier, beyond what the extension tests show."""
import json

import pytest
from grpc import StatusCode

from conftest import ALICE, BOB, KID, Signer
from unicornfit import identity
from unicornfit.errors import Refusal


def metadata(token):
    return [("authorization", f"Bearer {token}")]


def refusal(call):
    with pytest.raises(Refusal) as caught:
        call()
    return caught.value.code, caught.value.message


def test_subject_of_a_valid_token(signer):
    assert signer.verifier.subject(metadata(signer.token(BOB))) == BOB
    assert signer.verifier.subject([("Authorization", "bearer " + signer.token(ALICE))]) == ALICE


def test_a_key_added_to_the_jwks_is_found_on_the_first_miss(tmp_path):
    signer = Signer(str(tmp_path))
    (tmp_path / "next").mkdir()
    rotated = Signer(str(tmp_path / "next"))  # another key, added to the first JWKS under kid "next"
    document = json.loads(open(signer.jwks_path).read())
    document["keys"].append(dict(json.loads(open(rotated.jwks_path).read())["keys"][0], kid="next"))
    with open(signer.jwks_path, "w") as out:
        json.dump(document, out)
    assert signer.verifier.subject(metadata(rotated.token(BOB, kid="next"))) == BOB


def test_a_verified_token_is_remembered_until_it_expires(tmp_path):
    signer = Signer(str(tmp_path))
    token = signer.token(BOB)
    assert signer.verifier.subject(metadata(token)) == BOB
    with open(signer.jwks_path, "w") as out:
        json.dump({"keys": []}, out)
    signer.keys.reload()
    assert signer.verifier.subject(metadata(token)) == BOB  # remembered
    assert refusal(lambda: signer.verifier.subject(metadata(signer.token(ALICE)))) == (
        StatusCode.UNAUTHENTICATED, f'unknown signing key: kid "{KID}" is not in the JWKS')


@pytest.mark.parametrize(
    "member, value, message",
    [
        ("use", "enc", f'unknown signing key: kid "{KID}" is not in the JWKS'),  # not for signing: skipped
        ("alg", "ES384", "token does not match its key: the key is for ES384, not ES256"),
    ],
)
def test_a_key_not_for_this_token_is_refused(tmp_path, member, value, message):
    signer = Signer(str(tmp_path))
    document = json.loads(open(signer.jwks_path).read())
    document["keys"][0][member] = value
    with open(signer.jwks_path, "w") as out:
        json.dump(document, out)
    verifier = identity.TokenVerifier(identity.KeySet(signer.jwks_path))
    assert refusal(lambda: verifier.subject(metadata(signer.token()))) == (StatusCode.UNAUTHENTICATED, message)


def test_acting_user_without_a_request_context_is_the_subject(signer):
    assert identity.acting_user(signer.verifier, metadata(signer.token(BOB)), None) == BOB
