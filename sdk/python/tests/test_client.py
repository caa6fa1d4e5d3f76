"""The client against a real relayer process: every call, sync and async, and its errors."""

import asyncio
import json
import uuid

import pytest

from svc_memory import AsyncClient, Client, SvcError, verify_receipt


@pytest.fixture
def client(relayer):
    with Client(relayer["url"], delegate_key=relayer["delegate_key"],
                account_id=relayer["account_id"]) as c:
        yield c


def fresh() -> str:
    """A namespace of its own for a test."""
    return f"py-{uuid.uuid4().hex[:12]}"


def test_remember_recall_list_get_update_erase(client):
    ns = fresh()
    job = client.remember("I bike to work every day", namespace=ns, tags=["commute"], wait=True)
    assert job.status == "done"
    client.remember("My dentist is Dr Berg", namespace=ns, wait=True)
    hits = client.recall("How do I get to the office?", namespace=ns, limit=3)
    assert hits.results[0].text == "I bike to work every day"
    assert 0 <= hits.results[0].score <= 1
    page = client.list(namespace=ns, tags=["commute"])
    assert [m.text for m in page.memories] == ["I bike to work every day"]
    memory = client.get(page.memories[0].id)
    assert memory.tags == ["commute"] and memory.namespace == ns
    updated = client.update(memory.id, "I take the train to work", wait=True)
    assert updated.status == "done"
    now = client.list(namespace=ns, tags=["commute"]).memories
    assert [m.text for m in now] == ["I take the train to work"]
    receipt = client.erase(now[0].id)
    assert verify_receipt(receipt, client.health().receipt_key)
    assert client.list(namespace=ns, tags=["commute"]).memories == []
    assert {n["namespace"]: n["count"] for n in client.namespaces()}[ns] == 1


def test_bulk_jobs_whoami_embed_restore_and_namespace_erase(client, relayer):
    ns = fresh()
    jobs = client.remember_bulk([{"text": "I keep bees", "namespace": ns},
                                 {"text": "I play chess", "namespace": ns}], wait=True)
    assert [job.status for job in jobs] == ["done", "done"]
    assert client.whoami()["account_id"] == relayer["account_id"]
    embedded = client.embed(["I keep bees"], purpose="query")
    assert len(embedded["vectors"][0]) == embedded["dimensions"]
    assert client.restore(ns)["namespace"] == ns
    erased = client.erase_namespace(ns)
    assert erased["erased"] == 2
    assert client.recall("bees", namespace=ns).results == []


def test_a_question_about_nothing_stored_gets_no_result(client):
    ns = fresh()
    client.remember("I am vegetarian", namespace=ns, wait=True)
    answer = client.recall("zygomorphic quasar turbines", namespace=ns, explain=True)
    assert answer.results == [] and answer.total == 0
    assert answer.abstain_below is not None


def test_nothing_about_someone_holds_the_answer(client):
    ns = fresh()
    client.remember("Callum lives in a flat in Leith", namespace=ns, wait=True)
    answer = client.recall("How old is Callum?", namespace=ns, explain=True)
    assert answer.results == []
    assert answer.no_answer == {"about": "Callum", "asks_for": "number"}


def test_version_1_polls_freely(relayer):
    with Client(relayer["url"], delegate_key=relayer["delegate_key"], version=1) as c:
        ns = fresh()
        job = c.remember("I live in Bergen", namespace=ns)
        for _ in range(6):  # the same second's signature, several times
            assert c.jobs([job.job_id])[0].status in ("pending", "running", "done")
        assert c.remember("I live in Oslo", namespace=ns, wait=True).status == "done"


def test_errors_carry_code_reason_and_request_id(relayer, client):
    with pytest.raises(SvcError) as refused:
        client.get(str(uuid.uuid4()))
    assert (refused.value.status, refused.value.code) == (404, "not_found")
    assert refused.value.request_id
    stranger = Client(relayer["url"], delegate_key="11" * 32, account_id=relayer["account_id"])
    with pytest.raises(SvcError) as unknown:
        stranger.recall("anything")
    assert (unknown.value.status, unknown.value.reason) == (401, "unknown_key")
    with pytest.raises(SvcError) as bad:
        client.recall("")
    assert bad.value.code == "bad_request"


def test_arguments_of_the_wrong_kind_are_refused_before_anything_is_sent(relayer, client):
    for call in (lambda: client.get(None), lambda: client.get(".."), lambda: client.erase(""),
                 lambda: client.job(None), lambda: client.jobs(None), lambda: client.jobs("j1"),
                 lambda: client.remember_bulk(["a", "b"]), lambda: client.remember_bulk("a")):
        with pytest.raises(SvcError) as refused:
            call()
        assert (refused.value.code, refused.value.status) == ("bad_request", 0)
    with pytest.raises(SvcError) as key:
        Client(relayer["url"], delegate_key="zz", account_id=relayer["account_id"])
    assert key.value.code == "usage" and "64 hex characters" in str(key.value)
    assert "zz" not in str(key.value)


def test_async_client_has_the_same_calls(relayer):
    async def run():
        async with AsyncClient(relayer["url"], delegate_key=relayer["delegate_key"],
                               account_id=relayer["account_id"]) as a:
            ns = fresh()
            job = await a.remember("I swim on Sundays", namespace=ns, wait=True)
            assert job.status == "done"
            hits = await a.recall("swimming", namespace=ns)
            assert hits.results[0].text == "I swim on Sundays"
            receipt = await a.erase(hits.results[0].id)
            assert verify_receipt(receipt, (await a.health()).receipt_key)

    asyncio.run(run())


def test_credentials_from_the_environment(relayer, monkeypatch):
    monkeypatch.setenv("SVC_SERVER_URL", relayer["url"])
    monkeypatch.setenv("SVC_DELEGATE_KEY", relayer["delegate_key"])
    monkeypatch.setenv("SVC_ACCOUNT_ID", relayer["account_id"])
    with Client() as c:
        assert c.whoami()["account_id"] == relayer["account_id"]
    # Without SVC_SERVER_URL, this machine's relayer on SVC_PORT, as the CLI finds it.
    monkeypatch.delenv("SVC_SERVER_URL")
    monkeypatch.setenv("HOME", "/nonexistent-svc-test-home")
    monkeypatch.setenv("SVC_PORT", relayer["url"].rsplit(":", 1)[1])
    with Client() as c:
        assert c.whoami()["account_id"] == relayer["account_id"]
    monkeypatch.setenv("SVC_PORT", "99999")
    with pytest.raises(SvcError, match="SVC_PORT must be a port"):
        Client()


def test_export_then_import_into_another_namespace(client):
    source, target = fresh(), fresh()
    client.remember_bulk([{"text": "I keep bees", "namespace": source, "tags": ["hobby"]},
                          {"text": "My flat is on the third floor", "namespace": source}], wait=True)
    exported = client.export(namespace=source)
    assert sorted(m["text"] for m in exported) == ["I keep bees", "My flat is on the third floor"]
    assert next(m for m in exported if m["text"] == "I keep bees")["tags"] == ["hobby"]
    moved = [{**m, "namespace": target} for m in exported]
    # As a file gives them too: JSON text ending with its line break.
    lines = [json.dumps(moved[0]) + "\n", "", "not json\n", moved[1]]
    summary = client.import_(lines)
    assert (summary["imported"], summary["duplicates"]) == (2, 0)
    assert [f["line"] for f in summary["failed"]] == [3]
    client.wait_for_jobs(summary["job_ids"])
    assert sorted(m.text for m in client.list(namespace=target).memories) == [
        "I keep bees", "My flat is on the third floor"]
    # Again: every line a duplicate, nothing added.
    assert client.import_(moved)["duplicates"] == 2


def test_import_numbers_failures_by_item_whatever_the_line_breaks(client):
    ns = fresh()
    lines = [
        json.dumps({"text": "I grow tomatoes", "namespace": ns}),
        # JSON text over several lines is sent as one line.
        '{\n"text": "I play the cello",\r\n "namespace": "%s"\n}' % ns,
        '{"text":\n broken',
        # Over the 4 MiB a request takes: it fails alone, the lines after it are sent.
        json.dumps({"text": "x" * (4 * 1024 * 1024), "namespace": ns}),
        "\n",
        json.dumps({"namespace": ns}),
        json.dumps({"text": "I walk the dog at seven", "namespace": ns}) + "\n",
    ]
    summary = client.import_(lines)
    assert summary["failed"] == [
        {"line": 3, "error": "not valid JSON"},
        {"line": 4, "error": "longer than an import request takes"},
        {"line": 6, "error": "text is required"},
    ]
    assert (summary["imported"], summary["duplicates"]) == (3, 0)
    client.wait_for_jobs(summary["job_ids"])
    assert sorted(m.text for m in client.list(namespace=ns).memories) == [
        "I grow tomatoes", "I play the cello", "I walk the dog at seven"]


def test_async_export_and_import(relayer):
    async def run():
        async with AsyncClient(relayer["url"], delegate_key=relayer["delegate_key"],
                               account_id=relayer["account_id"]) as a:
            ns = fresh()
            assert (await a.import_([]))["imported"] == 0
            summary = await a.import_([{"text": "I collect stamps\u2028and coins", "namespace": ns}])
            await a.wait_for_jobs(summary["job_ids"])
            return await a.export(namespace=[ns])
    assert [m["text"] for m in asyncio.run(run())] == ["I collect stamps\u2028and coins"]
