"""Erase receipts are verified by default; a password in ``base_url`` never reaches an error.

A fake relayer (``httpx.MockTransport``) signs receipts with a key of the test's choosing, so a
forged or misdirected receipt can be answered; the real relayer checks the default path."""

import asyncio
import json
import socket
import uuid

import httpx
import pytest
from nacl.signing import SigningKey

from svc_memory import AsyncClient, Client, SvcError, receipt_message

RELAYER_KEY = SigningKey(bytes(range(32)))
FORGER_KEY = SigningKey(bytes(range(1, 33)))
SEED = "11" * 32


def signed_receipt(memory_id: str, key: SigningKey = RELAYER_KEY) -> dict:
    """A receipt for ``memory_id`` signed by ``key``."""
    fields = {"memory_id": memory_id, "owner": "0x" + "ab" * 32, "blob_id": "blob",
              "erased_at": "2026-01-01T00:00:00.000Z"}
    signature = key.sign(receipt_message(fields).encode()).signature.hex()
    return {**fields, "signature": signature}


def fake_relayer(sign_with: SigningKey = RELAYER_KEY, receipt_for: str = ""):
    """A relayer's answers: ``/health`` gives ``RELAYER_KEY``'s public key; an erase answers a
    receipt signed by ``sign_with``, for ``receipt_for`` (default: the memory asked)."""
    asked = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(f"{request.method} {request.url.path}")
        if request.url.path == "/health":
            key = RELAYER_KEY.verify_key.encode().hex()
            return httpx.Response(200, json={"status": "ok", "version": "0", "receiptKey": key})
        if request.method == "DELETE" and request.url.path.startswith("/api/memories/"):
            memory_id = receipt_for or request.url.path.rsplit("/", 1)[1]
            return httpx.Response(200, json=signed_receipt(memory_id, sign_with))
        if request.method == "DELETE" and request.url.path == "/api/memories":
            receipts = [signed_receipt("m1"), signed_receipt("m2", sign_with)]
            return httpx.Response(200, json={"namespace": "n", "erased": 2, "receipts": receipts})
        return httpx.Response(404, json={"error": "Not found", "code": "not_found"})

    return httpx.MockTransport(answer), asked


def fake_client(transport: httpx.MockTransport, **options) -> Client:
    return Client("http://relayer.test", delegate_key=SEED,
                  http=httpx.Client(transport=transport), **options)


def test_erase_verifies_its_receipt_by_default():
    transport, asked = fake_relayer()
    with fake_client(transport) as c:
        assert c.erase("m1")["memory_id"] == "m1"
        assert c.erase("m2")["memory_id"] == "m2"
    # The receipt key is read once, before the first erase.
    assert asked == ["GET /health", "DELETE /api/memories/m1", "DELETE /api/memories/m2"]


def test_a_receipt_signed_by_another_key_is_refused():
    transport, _ = fake_relayer(sign_with=FORGER_KEY)
    with fake_client(transport) as c, pytest.raises(SvcError) as refused:
        c.erase("m1")
    assert refused.value.code == "bad_receipt"
    assert "m1" in str(refused.value) and refused.value.details["memory_id"] == "m1"


def test_a_receipt_for_another_memory_is_refused():
    transport, _ = fake_relayer(receipt_for="another")
    with fake_client(transport) as c, pytest.raises(SvcError) as refused:
        c.erase("m1")
    assert refused.value.code == "bad_receipt"


def test_a_namespace_erase_verifies_every_receipt():
    transport, _ = fake_relayer()
    with fake_client(transport) as c:
        assert c.erase_namespace("n")["erased"] == 2
    transport, _ = fake_relayer(sign_with=FORGER_KEY)
    with fake_client(transport) as c, pytest.raises(SvcError) as refused:
        c.erase_namespace("n")
    assert refused.value.code == "bad_receipt" and refused.value.details["memory_id"] == "m2"


def test_a_pinned_receipt_key_is_used_instead_of_health():
    transport, asked = fake_relayer()
    pinned = FORGER_KEY.verify_key.encode().hex()
    with fake_client(transport, receipt_key=pinned) as c, pytest.raises(SvcError) as refused:
        c.erase("m1")
    assert refused.value.code == "bad_receipt"
    assert "GET /health" not in asked


def test_verify_receipts_false_skips_the_check():
    transport, asked = fake_relayer(sign_with=FORGER_KEY)
    with fake_client(transport, verify_receipts=False) as c:
        assert c.erase("m1")["memory_id"] == "m1"
    assert asked == ["DELETE /api/memories/m1"]


def test_the_async_client_verifies_receipts_too():
    async def run(sign_with: SigningKey) -> dict:
        transport, _ = fake_relayer(sign_with=sign_with)
        async with AsyncClient("http://relayer.test", delegate_key=SEED,
                               http=httpx.AsyncClient(transport=transport)) as a:
            return await a.erase("m1")

    assert asyncio.run(run(RELAYER_KEY))["memory_id"] == "m1"
    with pytest.raises(SvcError) as refused:
        asyncio.run(run(FORGER_KEY))
    assert refused.value.code == "bad_receipt"


def test_a_real_relayers_receipts_verify_by_default(relayer):
    with Client(relayer["url"], delegate_key=relayer["delegate_key"],
                account_id=relayer["account_id"]) as c:
        ns = f"py-{uuid.uuid4().hex[:12]}"
        c.remember("I keep bees", namespace=ns, wait=True)
        memory = c.list(namespace=ns).memories[0]
        assert c.erase(memory.id)["memory_id"] == memory.id
    pinned = FORGER_KEY.verify_key.encode().hex()
    with Client(relayer["url"], delegate_key=relayer["delegate_key"],
                account_id=relayer["account_id"], receipt_key=pinned) as c:
        c.remember("I keep wasps", namespace=ns, wait=True)
        with pytest.raises(SvcError) as refused:
            c.erase_namespace(ns)
        assert refused.value.code == "bad_receipt"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("userinfo", ["alice:s3cret-pw@", "alice:s3cret%40pw@", ":s3cret-pw@"])
def test_a_password_in_base_url_is_not_in_the_cannot_reach_error(userinfo):
    port = closed_port()
    url = f"http://{userinfo}127.0.0.1:{port}"
    with Client(url, delegate_key=SEED, retries=0) as c, pytest.raises(SvcError) as unreachable:
        c.recall("anything")
    message = str(unreachable.value)
    assert message.startswith(f"Cannot reach the relayer at http://127.0.0.1:{port}"), message
    assert "s3cret" not in message and "alice" not in message

    async def run() -> None:
        async with AsyncClient(url, delegate_key=SEED, retries=0) as a:
            await a.recall("anything")

    with pytest.raises(SvcError) as unreachable:
        asyncio.run(run())
    assert "s3cret" not in str(unreachable.value) and "alice" not in str(unreachable.value)


def test_a_password_echoed_by_the_transport_is_scrubbed_too():
    url = "http://alice:s3cret%40pw@relayer.test:8000"

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"cannot connect to {url} (password s3cret@pw, s3cret%40pw)")

    http = httpx.Client(transport=httpx.MockTransport(refuse))
    with Client(url, delegate_key=SEED, retries=0, http=http) as c, pytest.raises(SvcError) as e:
        c.recall("anything")
    assert "s3cret" not in str(e.value), str(e.value)
    assert "cannot connect to http://relayer.test:8000" in str(e.value)


def test_a_connection_broken_after_an_update_erase_or_import_was_sent_is_not_sent_again():
    asked = []
    failures = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/health":
            key = RELAYER_KEY.verify_key.encode().hex()
            return httpx.Response(200, json={"status": "ok", "version": "0", "receiptKey": key})
        asked.append(f"{request.method} {request.url.path}")
        if failures:
            raise failures.pop()
        return httpx.Response(200, json={"job_id": "j1", "memory_id": "m1", "status": "pending",
                                         "imported": 1, "duplicates": 0, "failed": [],
                                         "job_ids": ["j1"], "erased": 0, "receipts": []})

    http = httpx.Client(transport=httpx.MockTransport(answer))
    with Client("http://relayer.test", delegate_key=SEED, http=http) as c:
        calls = [lambda: c.update("m1", "I am vegan"), lambda: c.erase_namespace("work"),
                 lambda: c.import_([{"text": "I keep bees"}])]
        for call in calls:
            asked.clear()
            failures.append(httpx.ReadError("connection closed before the answer"))
            with pytest.raises(SvcError) as e:
                call()
            assert e.value.reason == "outcome_unknown" and len(asked) == 1, asked
        # A refused connection never reached the relayer; a remember sent again answers its memory.
        asked.clear()
        failures.append(httpx.ConnectError("connection refused"))
        c.update("m1", "I am vegan")
        failures.append(httpx.ReadError("connection closed before the answer"))
        c.remember("I keep bees")
        assert asked == ["PUT /api/memories/m1"] * 2 + ["POST /api/remember"] * 2


def test_a_version_1_request_sent_again_is_signed_in_a_later_second():
    stamps = []

    def answer(request: httpx.Request) -> httpx.Response:
        stamps.append(request.headers["x-timestamp"])
        if len(stamps) == 1:
            return httpx.Response(503, json={"error": "busy", "code": "server_busy"})
        return httpx.Response(200, json={"results": [], "total": 0})

    http = httpx.Client(transport=httpx.MockTransport(answer))
    with Client("http://relayer.test", delegate_key=SEED, http=http, version=1) as c:
        c.recall("anything")
    assert len(stamps) == 2 and stamps[0] != stamps[1], stamps


def test_a_call_the_models_failed_is_not_sent_again():
    asked = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        return httpx.Response(503, json={"error": "Ollama could not answer", "code":
                                         "backend_unavailable", "reason": "provider"})

    http = httpx.Client(transport=httpx.MockTransport(answer))
    with Client("http://relayer.test", delegate_key=SEED, http=http) as c:
        for call in (lambda: c.ask("Where do I live?"), lambda: c.recall("Where do I live?")):
            asked.clear()
            with pytest.raises(SvcError) as e:
                call()
            assert e.value.reason == "provider" and len(asked) == 1, asked


def test_update_never_expires_sends_expires_at_null():
    bodies = []

    def answer(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(202, json={"job_id": "j1", "status": "pending", "supersedes": "m1"})

    http = httpx.Client(transport=httpx.MockTransport(answer))
    with Client("http://relayer.test", delegate_key=SEED, http=http) as c:
        c.update("m1", "Parking spot B16", never_expires=True)
        c.update("m1", "Parking spot B18")
    assert bodies == [{"text": "Parking spot B16", "expires_at": None}, {"text": "Parking spot B18"}]
