"""``SvcStore`` through LangGraph's own store API, against a real relayer (no language model)."""

import asyncio
import uuid

import pytest
from langgraph.store.base import BaseStore

from svc_memory import Client
from svc_memory.langgraph import SvcStore


@pytest.fixture
def store(relayer):
    with Client(relayer["url"], delegate_key=relayer["delegate_key"],
                account_id=relayer["account_id"]) as client:
        yield SvcStore(client=client)


def test_put_get_search_delete(store):
    assert isinstance(store, BaseStore)
    user = ("lg", uuid.uuid4().hex[:10])
    store.put(user, "diet", {"text": "I am vegetarian", "since": 2019})
    store.put(user, "commute", {"text": "I bike to work"})
    item = store.get(user, "diet")
    assert (item.key, item.value, item.namespace) == ("diet", {"text": "I am vegetarian",
                                                              "since": 2019}, user)
    store.put(user, "diet", {"text": "I am vegan"})
    assert store.get(user, "diet").value == {"text": "I am vegan"}
    found = store.search(user, query="what do I eat?", limit=1)
    assert [hit.key for hit in found] == ["diet"] and found[0].score is not None
    listed = store.search(user, limit=10)
    assert sorted(hit.key for hit in listed) == ["commute", "diet"]
    assert [hit.key for hit in store.search(user, filter={"text": "I bike to work"})] == ["commute"]
    store.delete(user, "diet")
    assert store.get(user, "diet") is None
    assert store.get(user, "never") is None


def test_list_namespaces_and_async(store):
    root = "lgns" + uuid.uuid4().hex[:8]
    store.put((root, "a", "x"), "k", {"text": "one"})
    store.put((root, "b"), "k", {"text": "two"})
    assert store.list_namespaces(prefix=(root,)) == [(root, "a", "x"), (root, "b")]
    assert store.list_namespaces(prefix=(root,), max_depth=2) == [(root, "a"), (root, "b")]
    assert store.list_namespaces(prefix=(root, "*"), suffix=("x",)) == [(root, "a", "x")]

    async def run():
        await store.aput((root, "b"), "k2", {"text": "three"})
        return await store.aget((root, "b"), "k2")

    assert asyncio.run(run()).value == {"text": "three"}
    with pytest.raises(ValueError):
        store.put(("has/slash",), "k", {"text": "x"})
