"""``SvcStore``: LangGraph's long-term memory store (``BaseStore``) on svc.

How LangGraph's items map onto svc's memories:

- a namespace tuple is the svc namespace of its parts joined by ``/`` (``("users", "42")`` is
  ``users/42``); a part may not hold ``/``;
- an item is one memory whose text is ``{"key": key, "value": value}`` as JSON, tagged with a
  digest of its key; a value is any JSON object, and recall searches its words;
- ``put`` replaces an item (a new version of its memory, the old one erased), ``put`` of ``None``
  and ``delete`` erase it, ``search`` with a query is svc's recall (its ``score``), without one a
  list, newest first; ``filter`` keeps items whose value holds each given field and value;
- ``ttl`` (minutes) becomes the memory's expiry.

``abatch`` runs ``batch`` in a worker thread.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import datetime, timezone
from typing import Any, Dict, Iterable, List, Optional, Tuple

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from .client import Client
from .types import Memory


def _namespace(parts: Tuple[str, ...]) -> str:
    if not parts or any(not part or "/" in part for part in parts):
        raise ValueError(f"Cannot store under {parts!r}: parts must be non-empty and hold no '/'")
    return "/".join(parts)


def _tag(key: str) -> str:
    return "lg:" + hashlib.sha256(key.encode()).hexdigest()[:40]


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else datetime.now(timezone.utc)


def _item(memory: Memory, namespace: Tuple[str, ...], score: Optional[float] = None) -> Item:
    """The item a memory holds (a ``SearchItem`` when it was found by recall, with its score)."""
    held = json.loads(memory.text or "{}")
    fields: Dict[str, Any] = dict(
        namespace=namespace,
        key=held.get("key", ""),
        value=held.get("value", {}),
        created_at=_time(memory.created_at),
        updated_at=_time(memory.updated_at or memory.created_at),
    )
    return Item(**fields) if score is None else SearchItem(**fields, score=score)


class SvcStore(BaseStore):
    """LangGraph's ``BaseStore`` on a svc relayer: ``SvcStore(client=Client(...))``."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def batch(self, ops: Iterable[Op]) -> List[Result]:
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> List[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            found = self._find(op.namespace, op.key)
            return _item(found, op.namespace) if found else None
        if isinstance(op, PutOp):
            return self._put(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise ValueError(f"Unknown operation: {op!r}")

    def _find(self, namespace: Tuple[str, ...], key: str) -> Optional[Memory]:
        page = self.client.list(namespace=_namespace(namespace), tags=[_tag(key)], limit=1)
        return page.memories[0] if page.memories else None

    def _put(self, op: PutOp) -> None:
        found = self._find(op.namespace, op.key)
        if op.value is None:
            if found:
                self.client.erase(found.id)
            return None
        text = json.dumps({"key": op.key, "value": op.value}, ensure_ascii=False)
        if found:
            self.client.update(found.id, text, wait=True)
        else:
            ttl = None if op.ttl is None else max(1, round(op.ttl * 60))
            self.client.remember(text, namespace=_namespace(op.namespace), tags=[_tag(op.key)],
                                 ttl_seconds=ttl, wait=True)
        return None

    def _search(self, op: SearchOp) -> List[SearchItem]:
        wanted = op.offset + op.limit
        hits: List[Tuple[Optional[float], Memory, Tuple[str, ...]]] = []
        for space in self._spaces_under(op.namespace_prefix):
            name = _namespace(space)
            if op.query:
                for r in self.client.recall(op.query, namespace=name, limit=min(100, wanted)).results:
                    memory = Memory(id=r.id, namespace=name, text=r.text, tags=r.tags,
                                    created_at=r.created_at)
                    hits.append((r.score, memory, space))
            else:
                for m in self.client.list(namespace=name, limit=min(500, wanted)).memories:
                    hits.append((None, m, space))
        hits.sort(key=lambda hit: -(hit[0] or 0))
        items = [_item(m, space, score) for score, m, space in hits]
        if op.filter:
            items = [i for i in items if all(i.value.get(k) == v for k, v in op.filter.items())]
        return [self._as_search(i) for i in items[op.offset:wanted]]

    @staticmethod
    def _as_search(item: Any) -> SearchItem:
        if isinstance(item, SearchItem):
            return item
        return SearchItem(namespace=item.namespace, key=item.key, value=item.value,
                          created_at=item.created_at, updated_at=item.updated_at)

    def _spaces_under(self, prefix: Tuple[str, ...]) -> List[Tuple[str, ...]]:
        spaces = [tuple(n["namespace"].split("/")) for n in self.client.namespaces()]
        return [s for s in spaces if s[: len(prefix)] == tuple(prefix)]

    def _namespaces(self, op: ListNamespacesOp) -> List[Tuple[str, ...]]:
        spaces = [tuple(n["namespace"].split("/")) for n in self.client.namespaces()]
        for condition in op.match_conditions or ():
            path = tuple(condition.path)
            if condition.match_type == "prefix":
                spaces = [s for s in spaces if _matches(s[: len(path)], path)]
            else:
                spaces = [s for s in spaces if len(s) >= len(path) and _matches(s[-len(path):], path)]
        if op.max_depth is not None:
            spaces = [s[: op.max_depth] for s in spaces]
        unique = sorted(set(spaces))
        return unique[op.offset: op.offset + op.limit]


def _matches(parts: Tuple[str, ...], pattern: Tuple[str, ...]) -> bool:
    return len(parts) == len(pattern) and all(p == "*" or p == q for q, p in zip(parts, pattern))
