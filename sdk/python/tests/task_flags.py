"""The ``deno run`` arguments of the deno.json tasks that start the relayer and the operator CLI,
so the tests run them with the permissions ``deno task start`` and ``deno task svc`` give them
(the Deno tests read them the same way, in ``tests/task_flags.ts``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[3]
TASK_ENTRIES: Dict[str, str] = {"start": "main.ts", "svc": "cli/svc.ts", "svc-mcp": "cli/svc_mcp.ts"}


def parse_run_command(command: str) -> Tuple[List[str], str]:
    """Splits ``deno run FLAGS... FILE`` into its flags and its file; refuses anything else."""
    words = command.split()
    at = next((i for i, word in enumerate(words) if i >= 2 and not word.startswith("-")), -1)
    if words[:2] != ["deno", "run"] or at != len(words) - 1:
        raise ValueError(f'Cannot read the task: "{command}" is not "deno run FLAGS... FILE"')
    return words[2:at], words[at]


def deno_tasks(root: Path = ROOT) -> Dict[str, str]:
    """The ``tasks`` of the checkout's deno.json."""
    return json.loads((root / "deno.json").read_text())["tasks"]


def task_command(task: str, *args: str, root: Path = ROOT) -> List[str]:
    """The command line that runs the task's file as ``deno task TASK ARGS`` does."""
    flags, entry = parse_run_command(deno_tasks(root)[task])
    if entry != TASK_ENTRIES[task]:
        raise ValueError(f"Cannot read the task: {task} runs {entry}, not {TASK_ENTRIES[task]}")
    return ["deno", "run", *flags, str(root / entry), *args]
