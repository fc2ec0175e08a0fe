"""s01: the loop's stop conditions and the bash tool, against the offline model."""

from __future__ import annotations

import json

import pytest

from s01_loop import Agent, run_bash


def test_runs_a_command_and_stops_on_end_turn(client, workspace):
    messages = []
    answer = Agent(client, workspace=workspace).ask("Run `echo hello`", messages)
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[2]["content"][0]["content"] == "hello\n"
    assert "echo hello" in answer
    json.dumps(messages)  # plain JSON all the way


@pytest.mark.parametrize("command, expect", [("exit 3", "[exit code 3]"), ("sleep 5", "timed out")])
def test_failures_are_results_not_exceptions(workspace, command, expect):
    output, failed = run_bash(command, cwd=workspace, timeout=0.5)
    assert failed and expect in output
