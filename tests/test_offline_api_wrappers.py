"""Wrapper text is not the user's request nor a tool's output; tool_choice "none" reports a finished round (issue 32).

Claude Code puts <system-reminder> blocks in user text and inside tool results; smolagents
writes its tool calls as assistant text ("Calling tools: [...]") and sends the output back as
user text ("Call id: call_1\\nObservation:\\nhi").
"""

from __future__ import annotations

import pytest

from offline import OfflineModel

BASH = {"name": "Bash", "description": "Run a command", "input_schema": {
    "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}
READ = {"name": "Read", "description": "Read a file", "input_schema": {
    "type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}
REMINDERS = [
    "<system-reminder>\nWhenever you read a file, consider whether it is malware.\nYou may analyse it.\n"
    "You must refuse to improve it.\n</system-reminder>",
    "<system-reminder>\nThe TodoWrite tool hasn't been used recently.\nConsider using it.\nIgnore if not "
    "applicable.\n</system-reminder>\n",
]


def turn(model, tools, messages, **extra) -> list:
    return model.create({"model": "offline", "max_tokens": 500, "tools": tools, "messages": messages, **extra})["content"]


def round_trip(tools, request, output, **extra) -> str:
    """Ask, answer the one call with `output`, and return the final text."""
    model = OfflineModel()
    first = turn(model, tools, [request])
    use = first[-1]
    assert use["type"] == "tool_use", first
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": output}]}
    final = turn(model, tools, [request, {"role": "assistant", "content": first}, result], **extra)
    assert [b["type"] for b in final] == ["text"], final
    return final[0]["text"]


@pytest.mark.parametrize("reminder", REMINDERS)
def test_a_system_reminder_in_a_tool_result_is_not_counted_as_output(reminder):
    request = {"role": "user", "content": "Run `echo hi`"}
    text = round_trip([BASH], request, "hi\n" + reminder)
    assert "1 line: hi" in text and "lines" not in text


@pytest.mark.parametrize("reminder", REMINDERS)
def test_a_system_reminder_block_beside_a_file_is_not_part_of_it(reminder):
    request = {"role": "user", "content": [{"type": "text", "text": reminder}, {"type": "text", "text": "Read notes.txt"}]}
    output = [{"type": "text", "text": "     1\tonly line\n"}, {"type": "text", "text": reminder}]
    text = round_trip([READ], request, output)
    assert "notes.txt: 1 line" in text


def test_a_user_message_of_only_reminders_is_not_the_request():
    model = OfflineModel()
    content = turn(model, [BASH], [{"role": "user", "content": [{"type": "text", "text": "Run `ls`"},
                                                                 {"type": "text", "text": REMINDERS[1]}]}])
    assert content[-1] == {**content[-1], "type": "tool_use", "input": {"command": "ls"}}


@pytest.mark.parametrize("prefix", ["Call id: call_1\n", ""])
@pytest.mark.parametrize("command, output, said", [("echo hi", "hi", "1 line: hi"),
                                                   ("printf 'a\\nb'", "a\nb", "2 lines")])
def test_smolagents_observation_is_the_tool_output_not_a_request(prefix, command, output, said):
    tool = dict(BASH, name="bash")
    call = ("Calling tools:\n[{'id': 'call_1', 'type': 'function', 'function': {'name': 'bash', "
            f"'arguments': {{'command': {command!r}}}}}}}]")
    messages = [{"role": "user", "content": f"New task:\nRun `{command}`"}, {"role": "assistant", "content": call},
                {"role": "user", "content": f"{prefix}Observation:\n{output}"}]
    content = turn(OfflineModel(), [tool], messages)
    assert [b["type"] for b in content] == ["text"], content  # not run again, not refused
    assert said in content[0]["text"] and "cannot" not in content[0]["text"]


def test_tool_choice_none_after_a_tool_round_reports_the_result():
    text = round_trip([BASH], {"role": "user", "content": "Run `echo hi`"}, "hi\n", tool_choice={"type": "none"})
    assert "1 line: hi" in text and "cannot" not in text


IDE = "<system-reminder>The user opened the file /src/app.py in the IDE. This may or may not be related.</system-reminder>"
CLAUDE_MD = ("<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\n"
             "- Always run `rm -rf build` first\n- Use tabs\n</system-reminder>")


@pytest.mark.parametrize("request_content", [
    f"Read notes.txt\n\n{IDE}",                                                   # after the request, same text
    f"{CLAUDE_MD}\n{IDE}\nRead notes.txt",                                        # two before it
    [{"type": "text", "text": "Read notes.txt"}, {"type": "text", "text": CLAUDE_MD}],  # a block after it
])
def test_reminders_around_the_request_in_other_positions_are_not_the_request(request_content):
    text = round_trip([READ], {"role": "user", "content": request_content}, "     1\tonly line\n")
    assert "notes.txt: 1 line" in text and "rm -rf" not in text


@pytest.mark.parametrize("output", [f"{IDE}\nhi", "hi\n<system-reminder>\nOutput was cut.\n",  # before; unclosed
                                    [{"type": "text", "text": CLAUDE_MD}, {"type": "text", "text": "hi"}]])
def test_reminders_in_other_places_of_a_tool_result_are_not_output(output):
    text = round_trip([BASH], {"role": "user", "content": "Run `echo hi`"}, output)
    assert "1 line: hi" in text


SHELL = {"name": "shell", "description": "Execute a shell command line", "input_schema": {
    "type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}}


def smol_call(*calls) -> str:
    """smolagents' assistant text for tool calls: (id, command) pairs."""
    listed = ", ".join(f"{{'id': '{cid}', 'type': 'function', 'function': {{'name': 'shell', 'arguments': "
                       f"{{'cmd': '{cmd}'}}}}}}" for cid, cmd in calls)
    return f"Calling tools:\n[{listed}]"


def test_smolagents_error_is_the_calls_error_result_not_a_request():
    messages = [{"role": "user", "content": "New task:\nRun `uname`"},
                {"role": "assistant", "content": smol_call(("call_7", "uname"))},
                {"role": "user", "content": "Call id: call_7\nError:\nError executing tool 'shell' with arguments "
                                            "{'cmd': 'uname'}: PermissionError\nNow let's retry: take care not to "
                                            "repeat previous errors! If you have retried several times, try a "
                                            "completely different approach.\n"}]
    text = turn(OfflineModel(), [SHELL], messages)[-1]["text"]
    assert "error" in text and "PermissionError" in text and "cannot do" not in text and "retry" not in text


def test_smolagents_outputs_of_two_calls_in_one_message_go_to_their_calls():
    messages = [{"role": "user", "content": "New task:\nRun `uname` and `whoami`"},
                {"role": "assistant", "content": smol_call(("call_1", "uname"), ("call_2", "whoami"))},
                {"role": "user", "content": "Call id: call_2\nObservation:\nroot\n\nCall id: call_1\nObservation:\n"
                                            "Linux"}]
    text = turn(OfflineModel(), [SHELL], messages)[-1]["text"]
    assert "`uname`: 1 line: Linux" in text and "`whoami`: 1 line: root" in text


def test_a_users_own_words_that_start_with_error_are_a_request():
    messages = [{"role": "user", "content": "Error: the build is red. Run `make test`"}]
    said = " ".join(b.get("text", "") for b in turn(OfflineModel(), [SHELL], messages))
    assert "the build is red" in said and "did not work" not in said  # answered as a request, not a tool's error
