"""The reference system's own Python SDK (``memwal`` from PyPI, as published) against a relayer
process, unchanged: its documented calls, from its version check and signed requests to the
answers' fields it reads."""

import uuid

import pytest

memwal = pytest.importorskip("memwal")
from memwal import MemWalSync  # noqa: E402
from memwal.types import RecallManualOptions, RecallParams, RememberBulkItem  # noqa: E402


@pytest.fixture
def client(relayer):
    namespace = f"memwal-{uuid.uuid4().hex[:12]}"
    return MemWalSync.create(key=relayer["delegate_key"], account_id=relayer["account_id"],
                             server_url=relayer["url"], namespace=namespace), namespace


def test_health(client):
    c, _ = client
    health = c.health()
    assert health.status == "ok" and health.version


def test_remember_recall_ask_restore(client):
    c, namespace = client
    done = c.remember_and_wait("I am allergic to peanuts")
    assert done.blob_id and done.namespace == namespace
    bulk = c.remember_bulk_and_wait([RememberBulkItem(text="My sister lives in Lisbon"),
                                     RememberBulkItem(text="I commute by bicycle")])
    assert (bulk.total, bulk.succeeded, bulk.failed) == (2, 2, 0)
    found = c.recall(RecallParams(query="Where does my sister live?", limit=3))
    assert found.results[0].text == "My sister lives in Lisbon"
    assert found.results[0].blob_id and found.results[0].distance is not None
    answer = c.ask("What am I allergic to?")
    assert answer.memories_used >= 1 and answer.answer
    restored = c.restore(namespace)
    assert (restored.total, restored.restored, restored.truncated) == (3, 0, False)


def test_analyze_embed_and_recall_manual(client):
    c, namespace = client
    analyzed = c.analyze_and_wait("I moved to Porto last spring and I work as a nurse.")
    assert analyzed.facts
    vector = c.embed("Where do I live?").vector
    assert len(vector) > 0
    manual = c.recall_manual(RecallManualOptions(vector=vector, limit=5, namespace=namespace))
    assert manual.results and manual.results[0].blob_id


def test_list_namespaces(client):
    c, namespace = client
    c.remember_and_wait("I water the plants on Sundays")
    names, cursor = {}, None
    while True:
        page = c.list_namespaces(cursor=cursor, limit=1)
        names.update({ns.name: ns.memory_count for ns in page.namespaces})
        cursor = page.next_cursor
        if not page.has_more:
            break
    assert names[namespace] == 1
    assert page.snapshot_version == 2 and cursor
