"""Operator-blind namespaces from Python: the relayer stores and syncs them but cannot read them.

This machine embeds, ranks and decrypts. The ranking is the TypeScript client's own
(``BlindMemory`` of ``@svc/relayer/blind``), run in a Deno child process from the ``deno``
package (``blind_driver.js``, bundled with this package). That process may reach only the
relayer, read only the model directory, the re-ranker's word vectors and the cache file, and
write only the cache file. The model runs here, with onnxruntime, by the recipe the child reads
from the model directory, so every client of the namespace gets the same vectors.

    pip install "svc-memory[blind]"

    from svc_memory.blind import BlindMemory
    with BlindMemory("http://127.0.0.1:8000", delegate_key=SEED_HEX, account_id=ACCOUNT,
                     model_dir="./models/all-MiniLM-L6-v2", namespace="private") as memory:
        memory.enable()  # once, on the first device
        memory.remember(["I am vegetarian"])
        best = memory.recall("what do I eat?").results[0]
"""

from __future__ import annotations

import base64
import json
import os
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union
from urllib.parse import urlsplit

from . import types
from .errors import SvcError

DRIVER = Path(__file__).with_name("blind_driver.js")


class OnnxEmbedder:
    """A sentence-transformers ONNX model run by ``recipe`` (pooling, length, prefixes), the one
    the driver reads from the model directory; vectors are L2-normalised."""

    def __init__(self, model_dir: str, recipe: Dict[str, Any]) -> None:
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self._np = np
        self._recipe = recipe
        unknown = set(recipe["pooling"]) - {"mean", "cls", "max"}
        if unknown:
            raise SvcError(f"Pooling {sorted(unknown)} is not supported here", code="bad_request")
        self._session = ort.InferenceSession(
            os.path.join(model_dir, recipe["model_file"]), providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self._tokenizer.enable_truncation(recipe["max_length"])
        self._tokenizer.enable_padding()
        self.dimensions = len(self.embed(["dimensions"], "query")[0])

    def embed(self, texts: Sequence[str], purpose: str) -> List[Any]:
        """One float32 vector per text, ``purpose`` being ``query`` or ``document``."""
        prefix = self._recipe["prefixes"].get(purpose, "")
        step = 1 if self._recipe["one_at_a_time"] else 32
        vectors: List[Any] = []
        for start in range(0, len(texts), step):
            vectors.extend(self._run([prefix + text for text in texts[start:start + step]]))
        return vectors

    def _run(self, texts: List[str]) -> List[Any]:
        np = self._np
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], np.int64)
        mask = np.array([e.attention_mask for e in encodings], np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        states = self._session.run(None, {name: feed[name] for name in self._inputs})[0]
        kept = mask[:, :, None].astype(np.float32)
        pooled = []
        for mode in self._recipe["pooling"]:
            if mode == "mean":
                pooled.append((states * kept).sum(1) / np.maximum(kept.sum(1), 1e-9))
            elif mode == "cls":
                pooled.append(states[:, 0])
            else:
                pooled.append(np.where(kept > 0, states, -np.inf).max(1))
        vectors = np.concatenate(pooled, axis=1).astype(np.float32)
        return list(vectors / np.linalg.norm(vectors, axis=1, keepdims=True))


class BlindMemory:
    """One operator-blind namespace, read and written on this machine (see the module docs).

    ``models_dir`` holds the word vectors of the GloVe re-ranker a relayer puts on sentence
    models (``glove-100d-100k-v1.bin``, written by the relayer and ``svc`` on their first run;
    default ``SVC_MODELS_DIR``): with them, recall ranks exactly as the relayer's normal mode.
    ``cache_file`` keeps the namespace's log on this machine, sealed under the key.
    ``timeout`` is how many seconds a call waits for the client process to answer it (or to ask
    for vectors) before that process is stopped and the call fails.
    """

    def __init__(
        self,
        base_url: str,
        *,
        delegate_key: str,
        model_dir: str,
        account_id: Optional[str] = None,
        namespace: str = "default",
        label: str = "",
        cache_file: Optional[str] = None,
        models_dir: Optional[str] = None,
        timeout: float = 120.0,
    ) -> None:
        self.namespace = namespace
        self._timeout = timeout
        self._next = 0
        models_dir = models_dir or os.environ.get("SVC_MODELS_DIR")
        reads = [model_dir, *([models_dir] if models_dir else [])]
        self._process = _start_driver(base_url, reads, cache_file)
        self._lines: "queue.Queue[str]" = queue.Queue()
        threading.Thread(target=_read_lines, args=(self._process.stdout, self._lines),
                         daemon=True).start()
        try:
            recipe = self._call("recipe", {"model_dir": model_dir})
            self._embedder = OnnxEmbedder(model_dir, recipe)
            self._call("open", {
                "base_url": base_url, "private_key": delegate_key, "account_id": account_id,
                "namespace": namespace, "label": label, "cache_file": cache_file,
                "model_dir": model_dir, "models_dir": models_dir,
                "dimensions": self._embedder.dimensions,
            })
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "BlindMemory":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def enable(self) -> None:
        """Makes the namespace operator-blind; its manifest pins this model. 409 if it is."""
        self._call("enable")

    def sync(self) -> int:
        """Brings this machine up to the log's head; the head's number."""
        return self._call("sync")

    def remember(self, items: Sequence[Union[str, Dict[str, Any]]]) -> List[str]:
        """Remembers texts (or ``{"text", "tags", "thread"}``); their memory ids, in order."""
        given = [{"text": item} if isinstance(item, str) else item for item in items]
        return self._call("remember", {"items": given})

    def recall(
        self,
        query: str,
        *,
        limit: Optional[int] = None,
        tags: Optional[List[str]] = None,
        since: Optional[str] = None,
        until: Optional[str] = None,
        min_score: Optional[float] = None,
        explain: Optional[bool] = None,
    ) -> types.RecallResults:
        """The memories that best answer ``query``, ranked here as a relayer ranks them."""
        answer = self._call("recall", {
            "query": query, "limit": limit, "tags": tags, "since": since, "until": until,
            "min_score": min_score, "explain": explain,
        })
        return types.recall_results(answer)

    def memories(self) -> List[types.Memory]:
        """The namespace's memories on this machine after a sync, newest first."""
        return [self._memory(entry) for entry in self._call("memories")]

    def update(self, memory_id: str, text: str, tags: Optional[List[str]] = None) -> Dict[str, Any]:
        """Stores a new version; ``{"id", "supersedes", "receipt"}``."""
        return self._call("update", {"id": memory_id, "text": text, "tags": tags})

    def forget(self, memory_id: str) -> Dict[str, Any]:
        """Erases one memory; the relayer's signed receipt (``verify_receipt`` checks it)."""
        return self._call("forget", {"id": memory_id})

    def forget_all(self) -> Dict[str, Any]:
        """Erases the namespace: its log and keys on the relayer; a receipt per memory."""
        return self._call("forget_all")

    def let_in(self, public_key: str) -> None:
        """Lets another key of the account (64 hex characters) read and write the namespace."""
        self._call("let_in", {"public_key": public_key})

    def export_lines(self) -> List[Dict[str, Any]]:
        """The memories as an export's JSON lines, texts in clear."""
        return self._call("export_lines")

    def import_lines(self, lines: List[Dict[str, Any]]) -> List[str]:
        """Remembers an export's lines here; the new memories' ids."""
        return self._call("import_lines", {"lines": lines})

    def close(self) -> None:
        """Stops the child process. Calls after it fail."""
        process = self.__dict__.get("_process")
        if process is None or process.poll() is not None:
            return
        try:
            self._call("close")
            process.wait(timeout=5)
        except (SvcError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()

    def _memory(self, entry: Dict[str, Any]) -> types.Memory:
        import datetime

        at = datetime.datetime.fromtimestamp(entry["createdAt"] / 1000, datetime.timezone.utc)
        when = at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return types.Memory(
            id=entry["id"], namespace=self.namespace, text=entry["text"], tags=entry["tags"],
            thread=entry.get("thread"), created_at=when, updated_at=when,
        )

    def _call(self, call: str, args: Optional[Dict[str, Any]] = None) -> Any:
        """Sends one call and answers the child's embed requests until its answer comes."""
        process = self._process
        if process.poll() is not None:
            raise SvcError("The operator-blind client has stopped", code="unavailable")
        self._next += 1
        sent = {"id": self._next, "call": call,
                "args": {k: v for k, v in (args or {}).items() if v is not None}}
        try:
            process.stdin.write(json.dumps(sent) + "\n")
            process.stdin.flush()
            while True:
                try:
                    line = self._lines.get(timeout=self._timeout)
                except queue.Empty:
                    process.kill()
                    raise SvcError(f"The operator-blind client did not answer within "
                                   f"{self._timeout} s, and was stopped", code="timeout")
                if not line:
                    raise SvcError("The operator-blind client stopped: " + _last_words(process),
                                   code="unavailable")
                message = json.loads(line)
                if "embed" in message:
                    self._answer_embed(message)
                elif message.get("id") == self._next:
                    break
        except (BrokenPipeError, OSError) as error:
            raise SvcError(f"The operator-blind client stopped ({error})", code="unavailable")
        if "error" in message:
            error = message["error"]
            raise SvcError(error["message"], code=error["code"])
        return message["result"]

    def _answer_embed(self, message: Dict[str, Any]) -> None:
        try:
            vectors = self._embedder.embed(message["texts"], message["purpose"])
            coded = [base64.b64encode(v.astype("<f4").tobytes()).decode() for v in vectors]
            answer: Dict[str, Any] = {"embedded": message["embed"], "vectors": coded}
        except Exception as error:  # the child reports it as the call's failure
            answer = {"embedded": message["embed"], "error": str(error)}
        self._process.stdin.write(json.dumps(answer) + "\n")
        self._process.stdin.flush()


def _read_lines(stream: Any, lines: "queue.Queue[str]") -> None:
    """Puts each line of ``stream`` on ``lines``, then ``""`` once it ends."""
    for line in stream:
        lines.put(line)
    lines.put("")


def _start_driver(base_url: str, reads: List[str], cache_file: Optional[str]) -> subprocess.Popen:
    """The child process, with the narrowest permissions it needs."""
    try:
        from deno import find_deno_bin
    except ImportError as error:
        raise SvcError('Install the blind extra: pip install "svc-memory[blind]"',
                       code="bad_request") from error
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SvcError(f"Not a relayer URL: {base_url!r}", code="bad_request")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    writes = [cache_file, cache_file + ".tmp"] if cache_file else []
    flags = [
        "--no-prompt", "--quiet", f"--allow-net={parts.hostname}:{port}",
        f"--allow-read={','.join([*reads, *writes])}",
        *([f"--allow-write={','.join(writes)}"] if writes else []),
    ]
    return subprocess.Popen(
        [find_deno_bin(), "run", *flags, str(DRIVER)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, encoding="utf-8", env={**os.environ, "NO_COLOR": "1"},
    )


def _last_words(process: subprocess.Popen) -> str:
    """What the child said before it stopped (its standard error), or its exit status."""
    try:
        process.wait(timeout=5)
        said = process.stderr.read().strip() if process.stderr else ""
    except subprocess.TimeoutExpired:
        said = ""
    return said.splitlines()[-1] if said else f"exit status {process.returncode}"
