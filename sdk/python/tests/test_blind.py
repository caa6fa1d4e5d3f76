"""Operator-blind namespaces from Python, against the relayer process, with the real
all-MiniLM-L6-v2 (``python3 tests/models/fetch.py`` puts it in ``models/``): Python remembers,
recalls, updates and forgets; the TypeScript CLI (``svc blind``, with its task's flags) and
Python read each other's memories with the same scores; keys are let in; wrong models, a
stopped child and a closed client give clear errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from typing import Dict, Optional

import httpx
import pytest

from conftest import CLI, MODELS, _cli
from task_flags import ROOT

pytest.importorskip("onnxruntime")
pytest.importorskip("deno")
from svc_memory import SvcError, verify_receipt  # noqa: E402
from svc_memory.blind import BlindMemory  # noqa: E402

MODEL_DIR = str(ROOT / "models" / "all-MiniLM-L6-v2")
if not os.path.exists(os.path.join(MODEL_DIR, "onnx", "model.onnx")):
    pytest.skip("all-MiniLM-L6-v2 is not in models/ (python3 tests/models/fetch.py)",
                allow_module_level=True)

FACTS = [
    "I am allergic to peanuts and carry an epipen",
    "My sister Maeve teaches chemistry in Cork",
    "I cycle to the office every morning",
    "Our cat Biscuit sleeps on the radiator",
]


def device(relayer: Dict[str, str], namespace: str, key: str = "",
           cache_file: Optional[str] = None) -> BlindMemory:
    return BlindMemory(relayer["url"], delegate_key=key or relayer["delegate_key"],
                       account_id=relayer["account_id"], model_dir=MODEL_DIR,
                       namespace=namespace, models_dir=MODELS, cache_file=cache_file)


def svc_blind(relayer: Dict[str, str], *args: str, key: str = "",
              model_dir: str = MODEL_DIR) -> Dict:
    """``svc blind ARGS --json``, run with the CLI task's flags."""
    env = {**os.environ, "SVC_DATA_DIR": relayer["data_dir"], "SVC_SERVER_URL": relayer["url"],
           "SVC_DELEGATE_KEY": key or relayer["delegate_key"],
           "SVC_ACCOUNT_ID": relayer["account_id"], "SVC_ONNX_MODEL_DIR": model_dir,
           "SVC_MODELS_DIR": MODELS}
    done = subprocess.run([*CLI, "blind", *args, "--json"], env=env, cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(done.stderr or done.stdout)
    return json.loads(done.stdout)


def test_python_remembers_recalls_updates_and_forgets(relayer: Dict[str, str]) -> None:
    with device(relayer, "py-blind") as memory:
        memory.enable()
        ids = memory.remember([*FACTS[:3], {"text": FACTS[3], "tags": ["pets"]}])
        assert len(ids) == 4
        for question, fact in [("What food makes me ill?", 0), ("Where does Maeve work?", 1),
                               ("How do I get to work?", 2)]:
            assert memory.recall(question, limit=3).results[0].id == ids[fact]
        pets = memory.recall("sleeping animal", tags=["pets"], min_score=0)
        assert [r.id for r in pets.results] == [ids[3]]

        updated = memory.update(ids[2], "I take the train to the office every morning")
        assert updated["supersedes"] == ids[2]
        receipt = memory.forget(ids[0])
        key = httpx.get(relayer["url"] + "/health").json()["receiptKey"]
        assert verify_receipt(receipt, key)
        held = memory.memories()
        assert ids[0] not in {m.id for m in held} and ids[2] not in {m.id for m in held}
        assert held[0].id == updated["id"] and held[0].namespace == "py-blind"
        with pytest.raises(SvcError) as refused:
            memory.enable()
        assert refused.value.code == "conflict"


def test_a_cache_file_keeps_a_forget_across_restarts(relayer: Dict[str, str],
                                                      tmp_path) -> None:
    cache = str(tmp_path / "cache.bin")
    with device(relayer, "py-cache", cache_file=cache) as memory:
        memory.enable()
        ids = memory.remember(FACTS[:2])
        memory.forget(ids[0])
        assert [r.id for r in memory.recall("peanuts", min_score=0).results] == [ids[1]]
    with device(relayer, "py-cache", cache_file=cache) as again:
        assert [r.id for r in again.recall("peanuts", min_score=0).results] == [ids[1]]
    assert os.listdir(tmp_path) == ["cache.bin"]


def test_python_and_typescript_read_each_other_with_the_same_scores(
    relayer: Dict[str, str],
) -> None:
    svc_blind(relayer, "enable", "--namespace", "shared")
    typed = svc_blind(relayer, "remember", FACTS[1], "--namespace", "shared")["id"]
    with device(relayer, "shared") as memory:
        memory.remember([FACTS[0], FACTS[2]])
        for question in ["Who teaches chemistry?", "peanut allergy", "morning commute"]:
            ours = memory.recall(question, limit=3, min_score=0).results
            theirs = svc_blind(relayer, "recall", question, "--namespace", "shared",
                               "--limit", "3", "--min-score", "0")["results"]
            assert [r.id for r in ours] == [r["id"] for r in theirs], question
            for mine, other in zip(ours, theirs):
                assert abs(mine.score - other["score"]) < 1e-4, question
        assert memory.recall("Who teaches chemistry?").results[0].id == typed


def test_a_key_is_let_in_from_typescript_and_a_wrong_model_is_refused(
    relayer: Dict[str, str],
) -> None:
    phone = _cli(relayer["data_dir"], "key", "add", "--account", relayer["account_id"])
    svc_blind(relayer, "enable", "--namespace", "family")
    svc_blind(relayer, "remember", FACTS[3], "--namespace", "family")
    with device(relayer, "family", key=phone["privateKey"]) as memory:
        with pytest.raises(SvcError) as refused:
            memory.sync()
        assert refused.value.code == "forbidden" and "let it in" in str(refused.value)
        svc_blind(relayer, "let-in", "--public-key", phone["publicKey"], "--namespace", "family")
        assert memory.recall("Where does the cat sleep?").results[0].text == FACTS[3]

    # The same files under another name are another model id: the manifest refuses them.
    with tempfile.TemporaryDirectory() as renamed:
        other = os.path.join(renamed, "another-model")
        os.symlink(MODEL_DIR, other)
        svc_blind(relayer, "enable", "--namespace", "pinned", model_dir=other)
    with device(relayer, "pinned") as memory:
        with pytest.raises(SvcError) as refused:
            memory.sync()
        assert refused.value.code == "conflict" and "another-model" in str(refused.value)


def test_a_stopped_child_and_a_closed_client_give_clear_errors(relayer: Dict[str, str]) -> None:
    memory = device(relayer, "stopped")
    memory._process.kill()
    with pytest.raises(SvcError) as stopped:
        memory.sync()
    assert stopped.value.code == "unavailable"
    memory.close()
    with pytest.raises(SvcError):
        memory.recall("anything")
    with pytest.raises(SvcError) as bad:
        BlindMemory("ftp://example", delegate_key=relayer["delegate_key"], model_dir=MODEL_DIR)
    assert bad.value.code == "bad_request"


def test_a_child_that_stops_answering_fails_the_call_after_the_timeout(
        relayer: Dict[str, str]) -> None:
    memory = device(relayer, "stalled")
    memory._timeout = 0.5
    os.kill(memory._process.pid, signal.SIGSTOP)  # it hangs, as a stalled relayer would leave it
    with pytest.raises(SvcError) as stalled:
        memory.sync()
    assert stalled.value.code == "timeout"
    memory._process.wait(timeout=10)  # stopped for good
    with pytest.raises(SvcError) as after:
        memory.recall("anything")
    assert after.value.code == "unavailable"
    memory.close()
    again = device(relayer, "stalled")
    with pytest.raises(SvcError) as refused:
        again.recall("anything", limit=-1)
    assert "limit must be between 1 and 100" in str(refused.value)
    again.close()


def test_the_python_model_gives_the_reference_vectors(relayer: Dict[str, str]) -> None:
    """The vectors of ``tests/vectors/onnx_reference.json``, which the TypeScript embedder is
    checked against too, within 1e-4: the long text truncated, a query and other languages."""
    reference = json.loads((ROOT / "tests" / "vectors" / "onnx_reference.json").read_text())
    expected = reference["models"]["all-MiniLM-L6-v2"]["vectors"]
    with device(relayer, "vectors") as memory:
        for given, vector in zip(reference["texts"], expected):
            [ours] = memory._embedder.embed([given["text"]], given["purpose"])
            numbers = [float(x) for x in vector.split()]
            assert max(abs(a - b) for a, b in zip(ours, numbers)) < 1e-4, given["text"][:40]


def _in_memory(pid: int, needles: Dict[str, bytes]) -> set:
    """Which of ``needles`` the process ``pid``'s readable memory holds."""
    found = set()
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            if not perms.startswith("r"):
                continue
            start, end = (int(x, 16) for x in span.split("-"))
            for at in range(start, end, 1 << 24):
                try:
                    mem.seek(at)
                    chunk = mem.read(min(1 << 24, end - at) + 256)
                except (OSError, OverflowError, ValueError):
                    break
                found.update(name for name, needle in needles.items() if needle in chunk)
    return found


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux /proc")
def test_the_relayer_never_holds_what_python_remembered_blind(relayer: Dict[str, str]) -> None:
    """Texts remembered and recalled from Python in a blind namespace are nowhere in the
    relayer's memory; the same kind remembered in a normal namespace is (the control)."""
    from svc_memory import Client

    marks = [f"zebracrossing{i:03d}quokka" for i in range(20)]
    with device(relayer, "scanned") as memory:
        memory.enable()
        memory.remember([f"My locker code is {mark}" for mark in marks[:10]])
        assert memory.recall(f"locker code {marks[3]}").results[0].text.endswith(marks[3])
    client = Client(relayer["url"], delegate_key=relayer["delegate_key"],
                    account_id=relayer["account_id"])
    for mark in marks[10:]:
        client.remember(f"My gym code is {mark}", namespace="scanned-normal", wait=True)
    found = _in_memory(int(relayer["pid"]), {mark: mark.encode() for mark in marks})
    assert not found & set(marks[:10]), f"the relayer holds blind texts: {sorted(found)}"
    assert found & set(marks[10:]), "the control: normal texts are in the relayer's memory"
