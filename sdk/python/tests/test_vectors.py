"""The known-answer vectors the TypeScript tests read too (tests/vectors/signing.json)."""

import hashlib
import json
from pathlib import Path

from nacl.signing import SigningKey

from svc_memory import public_key_of, sign_request, signing_message, verify_receipt

VECTORS = json.loads(
    (Path(__file__).resolve().parents[3] / "tests" / "vectors" / "signing.json").read_text()
)


def test_key_and_body_hash():
    assert public_key_of(VECTORS["key"]["seed"]) == VECTORS["key"]["public_key"]
    request = VECTORS["request"]
    assert hashlib.sha256(request["body"].encode()).hexdigest() == request["body_sha256"]


def test_each_message_and_signature():
    request, seed = VECTORS["request"], VECTORS["key"]["seed"]
    for case in VECTORS["signatures"]:
        headers = case["headers"]
        audience = headers.get("x-audience")
        message = signing_message(
            request["timestamp"], request["method"].lower(), request["path"],
            request["body_sha256"], headers.get("x-nonce"), audience,
            None if audience else headers.get("x-account-id"),
        )
        assert message == case["message"], case["name"]
        signature = SigningKey(bytes.fromhex(seed)).sign(message.encode()).signature.hex()
        assert signature == headers["x-signature"], case["name"]


def test_the_signer_makes_the_version_1_and_2_headers():
    request, seed = VECTORS["request"], VECTORS["key"]["seed"]
    by_name = {case["name"]: case["headers"] for case in VECTORS["signatures"]}
    body = request["body"].encode()
    v1 = sign_request(seed, "POST", request["path"], body, timestamp=request["timestamp"],
                      version=1)
    assert v1 == by_name["version 1"]
    nonce = by_name["version 2"]["x-nonce"]
    v2 = sign_request(seed, "POST", request["path"], body, timestamp=request["timestamp"],
                      nonce=nonce, audience=by_name["version 2"]["x-audience"])
    assert v2 == by_name["version 2"]


def test_the_receipt():
    receipt = VECTORS["receipt"]
    assert verify_receipt(receipt["receipt"], receipt["receipt_key"])
    assert not verify_receipt({**receipt["receipt"], "blob_id": "another"}, receipt["receipt_key"])
    assert not verify_receipt({"memory_id": "x"}, receipt["receipt_key"])
