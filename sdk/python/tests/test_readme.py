"""The README's Python quick start, run as written by this SDK's Python against a relayer process
(the Deno tests run its terminal and TypeScript examples, in ``tests/e2e/readme_test.ts``).
The only change is the relayer's address: the test's takes a free port, a user's own may hold 8000."""

import os
import subprocess
import sys

from conftest import _cli
from task_flags import ROOT

README_URL = "http://127.0.0.1:8000"


def python_block(markdown: str) -> str:
    """The README's first ```python block."""
    lines = markdown.split("\n")
    start = lines.index("```python")
    end = lines.index("```", start + 1)
    return "\n".join(lines[start + 1:end]) + "\n"


def test_the_readme_python_quick_start_prints_the_memory_it_remembered(relayer, tmp_path):
    snippet = python_block((ROOT / "README.md").read_text())
    assert README_URL in snippet, "the snippet no longer calls the README's relayer"
    script = tmp_path / "memory.py"
    script.write_text(snippet.replace(README_URL, relayer["url"]))
    # A new account, its key exported as the README's terminal quick start exports it.
    account = _cli(relayer["data_dir"], "account", "create")["accountId"]
    key = _cli(relayer["data_dir"], "key", "add", "--account", account, "--label", "readme")
    env = {**os.environ, "SVC_DELEGATE_KEY": key["privateKey"], "SVC_ACCOUNT_ID": account}
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "I am vegetarian\n", done.stderr
