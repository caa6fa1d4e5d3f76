"""A real relayer for the tests: ``main.ts`` as its own process on free ports, with an account
and a delegate key made by the operator CLI (``deno`` must be on the PATH)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
from typing import Dict, Iterator

import pytest

from task_flags import ROOT, task_command

# The relayer and the CLI, run with the permissions of `deno task start` and `deno task svc`.
RELAYER = task_command("start")
CLI = task_command("svc")
MODELS = os.path.join(tempfile.gettempdir(), "svc-test-models")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli(data_dir: str, *args: str) -> Dict[str, str]:
    done = subprocess.run(
        [*CLI, *args, "--json"],
        env={**os.environ, "SVC_DATA_DIR": data_dir},
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    return json.loads(done.stdout)


@pytest.fixture(scope="session")
def relayer() -> Iterator[Dict[str, str]]:
    """A relayer process (the embedded default) and a key of a new account on it."""
    data_dir = tempfile.mkdtemp(prefix="svc-python-sdk-")
    env = {
        **os.environ,
        "SVC_DATA_DIR": data_dir,
        "SVC_PORT": "0",
        "SVC_DASHBOARD_PORT": "0",
        "SIDECAR_URL": f"http://127.0.0.1:{_free_port()}",
        "SVC_MODELS_DIR": MODELS,
        "SVC_LOG_LEVEL": "info",
    }
    process = subprocess.Popen(
        RELAYER, env=env, cwd=ROOT,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    url = ""
    seen = []
    assert process.stderr is not None
    for line in process.stderr:
        seen.append(line)
        found = re.search(r'"url":"(http://[^"]+)"', line)
        if found:
            url = found.group(1)
            break
    if not url:
        raise RuntimeError("the relayer did not start:\n" + "".join(seen))
    # Keep reading its log so that it never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
    try:
        account = _cli(data_dir, "account", "create")
        key = _cli(data_dir, "key", "add", "--account", account["accountId"], "--label", "pytest")
        yield {"url": url, "account_id": account["accountId"], "delegate_key": key["privateKey"],
               "data_dir": data_dir, "pid": str(process.pid)}
    finally:
        process.terminate()
        process.wait(timeout=30)
        shutil.rmtree(data_dir, ignore_errors=True)
