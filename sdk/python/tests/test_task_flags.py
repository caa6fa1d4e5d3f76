"""The relayer and the CLI of these tests run with the flags of their deno.json tasks."""

import pytest

from conftest import CLI, RELAYER
from task_flags import ROOT, deno_tasks, parse_run_command, task_command


def test_the_fixtures_run_the_tasks_command_lines_word_for_word():
    for task, command in (("start", RELAYER), ("svc", CLI)):
        words = deno_tasks()[task].split()
        assert command == [*words[:-1], str(ROOT / words[-1])]
    assert task_command("svc", "--json")[-1] == "--json"


def test_a_task_the_fixtures_cannot_reproduce_is_refused():
    assert parse_run_command("deno  run --allow-net --v8-flags=--x main.ts") == (
        ["--allow-net", "--v8-flags=--x"],
        "main.ts",
    )
    for command in ("deno task start", "deno run main.ts --port 1", "deno run a.ts && b"):
        with pytest.raises(ValueError, match="^Cannot read the task: "):
            parse_run_command(command)
