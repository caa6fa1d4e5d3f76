"""Typed answers of the relayer (unknown fields are kept in ``extra``)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional, Type, TypeVar

T = TypeVar("T")


def build(cls: Type[T], data: Dict[str, Any]) -> T:
    """An instance of the dataclass ``cls`` from JSON: known fields by name, the rest in ``extra``."""
    names = {f.name for f in fields(cls)} - {"extra"}  # type: ignore[arg-type]
    known = {name: data[name] for name in names if name in data}
    extra = {name: value for name, value in data.items() if name not in names}
    return cls(**known, extra=extra)  # type: ignore[call-arg]


@dataclass
class Job:
    """A remember job: ``pending``, ``running``, ``done`` or ``failed`` (``not_found`` in bulks)."""

    job_id: str
    status: str
    namespace: Optional[str] = None
    blob_id: Optional[str] = None
    memory_id: Optional[str] = None
    duplicate_of: Optional[str] = None
    error: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict)


@dataclass
class RecallResult:
    """A memory recall found: ``score`` in [0, 1], best first."""

    id: str
    text: str
    score: float
    distance: float
    blob_id: str = ""
    tags: List[str] = field(default_factory=list)
    created_at: str = ""
    expires_at: Optional[str] = None
    explain: Optional[Dict[str, Any]] = None
    extra: Dict[str, Any] = field(default_factory=dict)


@dataclass
class RecallResults:
    """What recall answers (no results: nothing matched)."""

    results: List[RecallResult]
    total: int
    abstain_below: Optional[float] = None
    margin: Optional[float] = None
    spread: Optional[float] = None
    #: With ``explain``: whom the question asks about, and the kind of answer none of their
    #: memories holds (``{"about": "Callum", "asks_for": "number"}``).
    no_answer: Optional[Dict[str, str]] = None
    extra: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Memory:
    """A stored memory, as list and get show it."""

    id: str
    namespace: str
    text: Optional[str]
    tags: List[str] = field(default_factory=list)
    thread: Optional[str] = None
    created_at: str = ""
    updated_at: str = ""
    expires_at: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict)


@dataclass
class MemoryPage:
    """A page of memories, newest first; ``next_cursor`` asks for the next."""

    memories: List[Memory]
    next_cursor: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Health:
    """``GET /health``: ``receipt_key`` verifies erase receipts."""

    status: str
    version: str
    receipt_key: str = ""
    extra: Dict[str, Any] = field(default_factory=dict)


def recall_results(data: Dict[str, Any]) -> RecallResults:
    answer = build(RecallResults, data)
    answer.results = [build(RecallResult, r) for r in data.get("results", [])]
    return answer


def memory_page(data: Dict[str, Any]) -> MemoryPage:
    page = build(MemoryPage, data)
    page.memories = [build(Memory, m) for m in data.get("memories", [])]
    return page


def health(data: Dict[str, Any]) -> Health:
    return build(Health, {**data, "receipt_key": data.get("receiptKey", "")})
