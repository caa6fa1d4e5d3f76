"""``Client`` and ``AsyncClient``: the relayer's signed API, the same calls in both.

Each call is written once (in ``_Api``): a request, and how its answer is read. ``Client`` sends
it at once; ``AsyncClient`` returns a coroutine.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import httpx

from . import types
from .errors import SvcError
from .receipts import verify_receipt
from .signing import audience_of, sign_request

#: Statuses tried again, with backoff (honouring ``Retry-After``).
RETRIED = {429, 502, 503, 504}
#: Reasons of a 503 that say the relayer's models failed the call, after the relayer's own
#: retries: not sent again, which would only repeat the wait and the cost.
MODEL_FAILURES = {"provider", "invalid_embedding"}
#: The most lines, and bytes, one ``POST /api/import`` carries from ``import_``.
IMPORT_LINES, IMPORT_BYTES = 500, 1024 * 1024
#: The most bytes ``POST /api/import`` takes in a request: a longer line fails on its own.
IMPORT_REQUEST_BYTES = 4 * 1024 * 1024


def _credentials(
    base_url: Optional[str], delegate_key: Optional[str], account_id: Optional[str]
) -> Tuple[str, str, Optional[str]]:
    """Arguments first, then ``SVC_SERVER_URL``/``SVC_DELEGATE_KEY``/``SVC_ACCOUNT_ID``, then the
    credentials file ``svc-mcp login`` writes (``~/.svc/credentials.json``); without a relayer
    named, this machine's on ``SVC_PORT`` (8000 by default), as the CLI does."""
    base_url = base_url or os.environ.get("SVC_SERVER_URL")
    delegate_key = delegate_key or os.environ.get("SVC_DELEGATE_KEY")
    account_id = account_id or os.environ.get("SVC_ACCOUNT_ID")
    saved = Path.home() / ".svc" / "credentials.json"
    if not delegate_key and saved.is_file():
        stored = json.loads(saved.read_text())
        delegate_key = stored.get("delegatePrivateKey")
        account_id = account_id or stored.get("accountId")
        base_url = base_url or stored.get("relayerUrl")
    if not delegate_key:
        raise SvcError(
            "No delegate key: pass delegate_key, set SVC_DELEGATE_KEY, or sign in with "
            "`svc-mcp login`",
            code="usage",
        )
    if not re.fullmatch(r"[0-9a-fA-F]{64}", str(delegate_key)):
        raise SvcError("The delegate key is not a private key: 64 hex characters", code="usage")
    return (base_url or _local_relayer()).rstrip("/"), delegate_key, account_id


def _local_relayer() -> str:
    """This machine's relayer, on the port ``SVC_PORT`` names (8000 without it)."""
    port = os.environ.get("SVC_PORT") or "8000"
    if not re.fullmatch(r"[0-9]{1,5}", port) or not 1 <= int(port) <= 65535:
        raise SvcError(f"SVC_PORT must be a port from 1 to 65535 (got {port[:20]!r})", code="usage")
    return f"http://127.0.0.1:{port}"


def _segment(value: Any, what: str) -> str:
    """``value`` as one path segment; an id that is not one, or would change the path (empty,
    ``.``, ``..``), is refused before anything is sent."""
    if not isinstance(value, str) or value in ("", ".", ".."):
        raise SvcError(f"{what} must be an id such as list() gives, not {value!r}",
                       code="bad_request")
    return quote(value, safe="")


def _without_userinfo(url: str) -> str:
    """``url`` without its ``user:password@``: what a message may show of it."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def _scrubbed(text: str, url: str) -> str:
    """``text`` with ``url`` shown without its user info, and that user info's password (as
    written and percent-decoded) replaced by ``***`` wherever else it appears."""
    userinfo = urlsplit(url).netloc.rpartition("@")[0]
    text = text.replace(url, _without_userinfo(url))
    password = userinfo.partition(":")[2]
    for secret in sorted({userinfo, unquote(userinfo), password, unquote(password)}, key=len,
                         reverse=True):
        if secret:
            text = text.replace(secret, "***")
    return text


def _checked_receipts(answer: Any, receipts: List[Tuple[Any, Optional[str]]], key: str) -> Any:
    """``answer`` once each receipt verifies under ``key`` (and is of the memory asked, when one
    was); otherwise ``SvcError`` ``bad_receipt``."""
    for receipt, memory_id in receipts:
        fields = receipt if isinstance(receipt, dict) else {}
        if verify_receipt(fields, key) and memory_id in (None, fields.get("memory_id")):
            continue
        shown = memory_id or fields.get("memory_id")
        raise SvcError(
            f"Cannot accept the erase receipt of memory {shown}: it is not signed by the "
            f"relayer's receipt key {key} for that memory (the memory may be erased all the same)",
            code="bad_receipt",
            details=fields,
        )
    return answer


def _query(params: Mapping[str, Any]) -> str:
    """``?name=value&…`` with every value percent-encoded (lists repeat their name)."""
    pairs = []
    for name, value in params.items():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if item is not None:
                pairs.append(f"{name}={quote(str(item), safe='')}")
    return "?" + "&".join(pairs) if pairs else ""


def _drop_none(body: Mapping[str, Any]) -> Dict[str, Any]:
    return {name: value for name, value in body.items() if value is not None}


def _error(response: httpx.Response) -> SvcError:
    try:
        body = response.json()
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    retry = response.headers.get("retry-after")
    return SvcError(
        body.get("error") or f"The relayer answered {response.status_code}",
        status=response.status_code,
        code=body.get("code", "internal"),
        reason=body.get("reason"),
        request_id=body.get("request_id") or response.headers.get("x-request-id"),
        retry_after=float(retry) if retry and retry.replace(".", "", 1).isdigit() else None,
        details=body,
    )


class _Call:
    """A request of the API and how its answer becomes a result: ``read`` takes the answer's
    JSON, or with ``lines`` its JSON lines; a ``bytes`` body is sent as JSON lines."""

    def __init__(
        self,
        method: str,
        path: str,
        body: Optional[Any],
        read: Callable[[Any], Any],
        signed: bool,
        lines: bool = False,
    ) -> None:
        self.method, self.path, self.body, self.read, self.signed = method, path, body, read, signed
        self.lines = lines


#: Transport errors of a request that never reached the relayer: it may be sent again.
_NOT_CONNECTED = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


def _done_once(call: _Call) -> bool:
    """Whether the relayer would not know ``call`` sent again after it did it: an update's finds
    its memory replaced (409), a namespace erase's erases nothing and answers no receipt, an
    import's counts its lines as duplicates. Remember (a duplicate answers its memory) and an
    erase by id (its receipt again) are sent again after a broken connection."""
    path = call.path.split("?")[0]
    return (
        (call.method == "PUT" and path.startswith("/api/memories/"))
        or (call.method == "DELETE" and path in ("/api/memories", "/api/blind"))
        or (call.method == "POST" and path == "/api/import")
    )


def _import_line(item: Any) -> Optional[str]:
    """The JSON line of an item (one line: a text with line breaks, as a file's line ends, is
    parsed and written again), or ``None`` for such a text that is not JSON."""
    if not isinstance(item, str):
        return json.dumps(item)
    if not item.strip() or not re.search(r"[\r\n]", item):
        return item
    try:
        return json.dumps(json.loads(item), allow_nan=False)
    except ValueError:
        return None


def _import_batches(
    lines: Iterable[Any],
) -> Tuple[List[List[Tuple[int, str]]], List[Dict[str, Any]]]:
    """The lines as JSON, each with its number (from 1), in batches an import request takes, and
    the failures of those that cannot be sent; blank lines are left out."""
    batches: List[List[Tuple[int, str]]] = []
    failed: List[Dict[str, Any]] = []
    size = 0
    for number, line in enumerate(lines, start=1):
        text = _import_line(line)
        if text is not None and not text.strip():
            continue
        length = 0 if text is None else len(text.encode()) + 1
        if text is None or length > IMPORT_REQUEST_BYTES:
            error = "not valid JSON" if text is None else "longer than an import request takes"
            failed.append({"line": number, "error": error})
            continue
        if not batches or len(batches[-1]) == IMPORT_LINES or size + length > IMPORT_BYTES:
            batches.append([])
            size = 0
        batches[-1].append((number, text))
        size += length
    return batches, failed


class _Api:
    """The calls (both clients): ``_call`` sends one, ``_then`` goes on from its result."""

    base_url: str
    _key: str
    _account_id: Optional[str]
    _version: int
    _retries: int
    _verify_receipts: bool
    #: The key receipts verify under: given, or read from ``/health`` before the first erase.
    _receipt_key: Optional[str]

    def _call(self, call: _Call) -> Any:  # pragma: no cover - each client defines it
        raise NotImplementedError

    def _then(self, value: Any, then: Callable[[Any], Any]) -> Any:
        return then(value)

    def _value(self, value: Any) -> Any:
        """``value`` as a call's result (awaitable in ``AsyncClient``)."""
        return value

    def _request(self, call: _Call) -> Tuple[str, Dict[str, str], bytes]:
        headers: Dict[str, str] = {}
        if isinstance(call.body, bytes):
            content = call.body
            headers["content-type"] = "application/x-ndjson"
        else:
            content = b"" if call.body is None else json.dumps(call.body).encode()
        if call.body is not None and not isinstance(call.body, bytes):
            headers["content-type"] = "application/json"
        if call.signed:
            headers.update(
                sign_request(
                    self._key,
                    call.method,
                    call.path,
                    content,
                    audience=audience_of(self.base_url) if self._version == 2 else None,
                    version=self._version,
                )
            )
            if self._account_id:
                headers["x-account-id"] = self._account_id
        return self.base_url + call.path, headers, content

    def _next(
        self,
        call: _Call,
        attempt: int,
        response: Optional[httpx.Response] = None,
        error: Optional[Exception] = None,
    ) -> Tuple[Optional[float], Any]:
        """After an attempt: the seconds to wait before the next one, or ``None`` and the call's
        result (a refusal is raised)."""
        last = attempt == self._retries
        if error is not None:
            shown = _without_userinfo(self.base_url)
            if _done_once(call) and not isinstance(error, _NOT_CONNECTED):
                raise SvcError(
                    f"The connection to the relayer at {shown} broke after the request was "
                    "sent, so it was not sent again: the relayer may have done it. Check (get "
                    "or list) before sending it again",
                    reason="outcome_unknown",
                ) from error
            if last:
                raise SvcError(
                    f"Cannot reach the relayer at {shown}: {_scrubbed(str(error), self.base_url)}"
                ) from error
            return self._again_after(call, self._wait_seconds(None, attempt)), None
        assert response is not None
        if response.status_code >= 400:
            error = _error(response)
            if response.status_code in RETRIED and not last and error.reason not in MODEL_FAILURES:
                return self._again_after(call, self._wait_seconds(response, attempt)), None
            raise error
        if call.lines:
            # Split on "\n" alone: a text may hold U+2028 and the like, which JSON leaves raw.
            lines = response.text.split("\n")
            return None, call.read([json.loads(line) for line in lines if line.strip()])
        return None, call.read(response.json() if response.content else {})

    @staticmethod
    def _finished(jobs: List[types.Job], first: bool) -> Any:
        """The jobs (``first``: the first alone) once none is pending or running, else ``None``."""
        if any(job.status in ("pending", "running") for job in jobs):
            return None
        return jobs[0] if first else jobs

    def _again_after(self, call: _Call, wait: float) -> float:
        """``wait``, or a second for a request signed with version 1: its signature has no nonce,
        so the same request signed in the same second is refused as a replay."""
        return max(wait, 1.0) if call.signed and self._version == 1 else wait

    @staticmethod
    def _wait_seconds(response: Optional[httpx.Response], attempt: int) -> float:
        retry = response.headers.get("retry-after") if response is not None else None
        if retry and retry.replace(".", "", 1).isdigit():
            return min(float(retry), 30.0)
        return min(0.25 * 2**attempt, 8.0)

    # The calls.

    def health(self) -> Any:
        """``GET /health``: the relayer's state; ``receipt_key`` verifies erase receipts."""
        return self._call(_Call("GET", "/health", None, types.health, signed=False))

    def whoami(self) -> Any:
        """The caller's account, key and scope."""
        return self._call(_Call("GET", "/api/whoami", None, dict, True))

    def remember(
        self,
        text: str,
        *,
        namespace: Optional[str] = None,
        tags: Optional[List[str]] = None,
        thread: Optional[str] = None,
        ttl_seconds: Optional[int] = None,
        wait: bool = False,
    ) -> Any:
        """Remembers ``text``: its job (``wait=True``: once recallable, the finished job)."""
        body = _drop_none(
            {"text": text, "namespace": namespace, "tags": tags, "thread": thread,
             "ttl_seconds": ttl_seconds}
        )
        accepted = self._call(_Call("POST", "/api/remember", body, _job, True))
        return self._then(accepted, lambda job: self._settled(job) if wait else job)

    def remember_bulk(self, items: Iterable[Mapping[str, Any]], *, wait: bool = False) -> Any:
        """Remembers 1 to 20 items (``{"text", "namespace"?, "tags"?}``): their job ids."""
        items = [] if isinstance(items, (str, Mapping)) else list(items)
        if not items or not all(isinstance(i, Mapping) for i in items):
            raise SvcError('items must be 1 to 20 mappings such as {"text": "…"}',
                           code="bad_request")
        accepted = self._call(
            _Call("POST", "/api/remember/bulk", {"items": [dict(i) for i in items]}, dict, True)
        )
        return self._then(
            accepted, lambda a: self.wait_for_jobs(a["job_ids"]) if wait else a
        )

    def job(self, job_id: str) -> Any:
        """A remember job's state."""
        path = f"/api/remember/{_segment(job_id, 'job_id')}"
        return self._call(_Call("GET", path, None, _job, True))

    def jobs(self, job_ids: List[str]) -> Any:
        """1 to 100 jobs' states, in order (an unknown one is ``not_found``)."""
        if isinstance(job_ids, str) or not all(isinstance(i, str) for i in job_ids or [None]):
            raise SvcError("job_ids must be a list of job ids", code="bad_request")
        return self._call(
            _Call("POST", "/api/remember/bulk/status", {"job_ids": list(job_ids)},
                  lambda d: [_job(j) for j in d["results"]], True)
        )

    def recall(
        self,
        query: str,
        *,
        namespace: Optional[str] = None,
        limit: Optional[int] = None,
        tags: Optional[List[str]] = None,
        since: Optional[str] = None,
        until: Optional[str] = None,
        min_score: Optional[float] = None,
        explain: Optional[bool] = None,
    ) -> Any:
        """The memories that best answer ``query``, best first (none when nothing matches)."""
        body = _drop_none(
            {"query": query, "namespace": namespace, "limit": limit, "tags": tags,
             "since": since, "until": until, "min_score": min_score, "explain": explain}
        )
        return self._call(_Call("POST", "/api/recall", body, types.recall_results, True))

    def list(
        self,
        *,
        namespace: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        tags: Optional[List[str]] = None,
    ) -> Any:
        """A page of a namespace's memories, newest first."""
        path = "/api/memories" + _query(
            {"namespace": namespace, "limit": limit, "cursor": cursor, "tag": tags}
        )
        return self._call(_Call("GET", path, None, types.memory_page, True))

    def get(self, memory_id: str) -> Any:
        """One memory."""
        path = f"/api/memories/{_segment(memory_id, 'memory_id')}"
        return self._call(_Call("GET", path, None, lambda d: types.build(types.Memory, d), True))

    def update(self, memory_id: str, text: str, *, tags: Optional[List[str]] = None,
               never_expires: bool = False, wait: bool = False) -> Any:
        """Replaces a memory's text (a new version; the old one is erased): its job. The new
        version keeps the old one's tags and expiry, unless ``tags`` or ``never_expires``."""
        path = f"/api/memories/{_segment(memory_id, 'memory_id')}"
        body = {**_drop_none({"text": text, "tags": tags}),
                **({"expires_at": None} if never_expires else {})}
        accepted = self._call(_Call("PUT", path, body, _job, True))
        return self._then(accepted, lambda job: self._settled(job) if wait else job)

    def erase(self, memory_id: str) -> Any:
        """Erases a memory (its key is destroyed): the signed receipt, verified (see
        ``verify_receipts``)."""
        path = f"/api/memories/{_segment(memory_id, 'memory_id')}"
        return self._verified(
            lambda: self._call(_Call("DELETE", path, None, dict, True)),
            lambda receipt: [(receipt, memory_id)],
        )

    def erase_namespace(self, namespace: str) -> Any:
        """Erases every memory of a namespace: a receipt each, each verified."""
        path = "/api/memories" + _query({"namespace": namespace, "confirm": namespace})
        return self._verified(
            lambda: self._call(_Call("DELETE", path, None, dict, True)),
            lambda answer: [(receipt, None) for receipt in answer.get("receipts", [])],
        )

    def _verified(
        self,
        send: Callable[[], Any],
        receipts_of: Callable[[Any], List[Tuple[Any, Optional[str]]]],
    ) -> Any:
        """``send()``'s answer once the receipts ``receipts_of`` it (each with the memory asked,
        if one was) verify under the receipt key, read before anything is erased."""
        if not self._verify_receipts:
            return send()
        return self._then(
            self._receipt_key_of(),
            lambda key: self._then(
                send(), lambda answer: _checked_receipts(answer, receipts_of(answer), key)
            ),
        )

    def _receipt_key_of(self) -> Any:
        """The receipt key: the one given, else ``/health``'s, read once."""
        if self._receipt_key:
            return self._value(self._receipt_key)

        def keep(health: types.Health) -> str:
            if not health.receipt_key:
                raise SvcError(
                    "Cannot verify erase receipts: the relayer's /health gives no receipt key "
                    "(pass receipt_key, or verify_receipts=False)",
                    code="bad_receipt",
                )
            self._receipt_key = health.receipt_key
            return health.receipt_key

        return self._then(self.health(), keep)

    def namespaces(self) -> Any:
        """The caller's namespaces and how many memories each holds."""
        return self._call(_Call("GET", "/api/namespaces", None, lambda d: d["namespaces"], True))

    def analyze(self, text: str, *, namespace: Optional[str] = None) -> Any:
        """Has the relayer's language model extract facts from ``text`` and remember them."""
        body = _drop_none({"text": text, "namespace": namespace})
        return self._call(_Call("POST", "/api/analyze", body, dict, True))

    def ask(self, question: str, *, limit: Optional[int] = None,
            namespace: Optional[str] = None) -> Any:
        """An answer from the memories that best match ``question``."""
        body = _drop_none({"question": question, "limit": limit, "namespace": namespace})
        return self._call(_Call("POST", "/api/ask", body, dict, True))

    def restore(self, namespace: str, *, limit: Optional[int] = None) -> Any:
        """Indexes again a namespace's memories from their blobs."""
        body = _drop_none({"namespace": namespace, "limit": limit})
        return self._call(_Call("POST", "/api/restore", body, dict, True))

    def embed(self, texts: List[str], *, purpose: Optional[str] = None) -> Any:
        """Vectors of ``texts`` in the relayer's own space (the relayer reads the texts)."""
        body = _drop_none({"texts": list(texts), "purpose": purpose})
        return self._call(_Call("POST", "/api/embed", body, dict, True))

    def access_log(self, **filters: Any) -> Any:
        """A page of the access log (``op``, ``namespace``, ``since``, ``limit``, ``cursor``…)."""
        path = "/api/access-log" + _query(filters)
        return self._call(_Call("GET", path, None, dict, True))

    def export(self, *, namespace: Optional[Any] = None) -> Any:
        """Every memory the key may read (of ``namespace``: a name or a list of names), as the
        export's JSON lines: dicts with ``text``, ``namespace``, ``tags``, ``created_at``…"""
        names = [namespace] if isinstance(namespace, str) else namespace
        path = "/api/export" + _query({"namespace": names})
        return self._call(_Call("GET", path, None, list, True, lines=True))

    def import_(self, lines: Iterable[Any]) -> Any:
        """Imports memories (an export's lines, as dicts or JSON text) in batches of up to 500;
        texts their namespace holds already are skipped. Returns ``imported``, ``duplicates``,
        ``job_ids`` and ``failed`` (each ``{"line", "error"}``, ``line`` counted from 1 in
        ``lines``)."""
        batches, failed = _import_batches(lines)
        total: Dict[str, Any] = {"imported": 0, "duplicates": 0, "failed": failed, "job_ids": []}

        def send(index: int) -> Any:
            if index == len(batches):
                total["failed"].sort(key=lambda failure: failure["line"])
                return self._value(total)
            numbers = [number for number, _ in batches[index]]

            def add(summary: Dict[str, Any]) -> Any:
                total["imported"] += summary["imported"]
                total["duplicates"] += summary["duplicates"]
                total["job_ids"] += summary["job_ids"]
                for failure in summary["failed"]:
                    line = failure["line"]
                    at = numbers[line - 1] if 0 < line <= len(numbers) else line
                    total["failed"].append({**failure, "line": at})
                return send(index + 1)

            body = "".join(text + "\n" for _, text in batches[index]).encode()
            return self._then(self._call(_Call("POST", "/api/import", body, dict, True)), add)

        return send(0)

    def _settled(self, job: types.Job) -> Any:
        """``job`` once done or failed (a duplicate is done already)."""
        if job.status not in ("pending", "running"):
            return job
        return self.wait_for_jobs([job.job_id], first=True)

    def wait_for_jobs(self, job_ids: List[str], *, first: bool = False) -> Any:  # pragma: no cover
        raise NotImplementedError


def _job(data: Dict[str, Any]) -> types.Job:
    return types.build(types.Job, {"job_id": data.get("job_id", ""), **data})


class Client(_Api):
    """A signed client of a relayer, sending each call at once.

    ``Client()`` reads its credentials from the environment or ``~/.svc/credentials.json``;
    ``version=1`` signs as the specification's clients do (no audience, no nonce).
    Erase receipts are verified under ``receipt_key`` (default: ``/health``'s, read once before
    the first erase); one that does not verify raises ``SvcError`` ``bad_receipt``.
    ``verify_receipts=False`` returns them unchecked.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        *,
        delegate_key: Optional[str] = None,
        account_id: Optional[str] = None,
        version: int = 2,
        retries: int = 3,
        timeout: float = 30.0,
        http: Optional[httpx.Client] = None,
        verify_receipts: bool = True,
        receipt_key: Optional[str] = None,
    ) -> None:
        self.base_url, self._key, self._account_id = _credentials(base_url, delegate_key, account_id)
        self._version, self._retries = version, retries
        self._verify_receipts, self._receipt_key = verify_receipts, receipt_key
        self._http = http or httpx.Client(timeout=timeout)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _call(self, call: _Call) -> Any:
        for attempt in range(self._retries + 1):
            url, headers, content = self._request(call)  # signed afresh each time
            try:
                response = self._http.request(call.method, url, headers=headers, content=content)
            except httpx.TransportError as error:
                wait, result = self._next(call, attempt, error=error)
            else:
                wait, result = self._next(call, attempt, response)
            if wait is None:
                return result
            time.sleep(wait)

    def wait_for_jobs(self, job_ids: List[str], *, first: bool = False,
                      timeout: float = 30.0) -> Any:
        """The jobs once each is done or failed (``first``: the first job alone)."""
        deadline = time.monotonic() + timeout
        delay = 0.02
        while (finished := self._finished(self.jobs(job_ids), first)) is None:
            if time.monotonic() + delay > deadline:
                raise SvcError("The jobs did not finish in time", code="timeout")
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
        return finished


class AsyncClient(_Api):
    """The same calls as ``Client``, awaited: ``async with AsyncClient(...) as a: await a.recall(...)``."""

    def __init__(
        self,
        base_url: Optional[str] = None,
        *,
        delegate_key: Optional[str] = None,
        account_id: Optional[str] = None,
        version: int = 2,
        retries: int = 3,
        timeout: float = 30.0,
        http: Optional[httpx.AsyncClient] = None,
        verify_receipts: bool = True,
        receipt_key: Optional[str] = None,
    ) -> None:
        self.base_url, self._key, self._account_id = _credentials(base_url, delegate_key, account_id)
        self._version, self._retries = version, retries
        self._verify_receipts, self._receipt_key = verify_receipts, receipt_key
        self._http = http or httpx.AsyncClient(timeout=timeout)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _value(self, value: Any) -> Any:  # type: ignore[override]
        return value

    async def _then(self, value: Any, then: Callable[[Any], Any]) -> Any:  # type: ignore[override]
        result = then(await value)
        return await result if inspect.isawaitable(result) else result

    async def _call(self, call: _Call) -> Any:  # type: ignore[override]
        for attempt in range(self._retries + 1):
            url, headers, content = self._request(call)  # signed afresh each time
            try:
                response = await self._http.request(call.method, url, headers=headers, content=content)
            except httpx.TransportError as error:
                wait, result = self._next(call, attempt, error=error)
            else:
                wait, result = self._next(call, attempt, response)
            if wait is None:
                return result
            await asyncio.sleep(wait)

    async def wait_for_jobs(self, job_ids: List[str], *, first: bool = False,  # type: ignore[override]
                            timeout: float = 30.0) -> Any:
        """The jobs once each is done or failed (``first``: the first job alone)."""
        deadline = time.monotonic() + timeout
        delay = 0.02
        while (finished := self._finished(await self.jobs(job_ids), first)) is None:
            if time.monotonic() + delay > deadline:
                raise SvcError("The jobs did not finish in time", code="timeout")
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.5)
        return finished
