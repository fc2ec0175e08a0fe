"""s05: big tool outputs persisted with a preview, the cache breakpoint, and the s05 agent."""

from __future__ import annotations

import copy
import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from strategies import assert_api_valid, histories

from lessonkit import tokens
from lessonkit.exercises import exercise_cells
from lessonkit.exercises.s05_budget import exercise
from lessonkit.show.demo import make_workspace
from offline import OfflineModel, offline_client
from s01_loop import ToolError
from s03_permissions import always_approve
from s04_hooks import Agent as HooksAgent
from s05_budget import (
    Agent,
    persist_large_output,
    persisted_path,
    preview,
    read_slice,
    result_text,
    safe_name,
    tool_result_budget,
    with_cache_breakpoint,
)

BIG = "".join(f"line {i:05d} " + "x" * 60 + "\n" for i in range(1_500))  # 108,000 characters


# ---------------------------------------------------------------- persist_large_output

def test_short_output_is_returned_as_is_and_nothing_is_written(tmp_path):
    out = tmp_path / "results"
    assert persist_large_output("toolu_1", "hello", directory=out) == "hello"
    assert persist_large_output("toolu_1", "x" * 30_000, directory=out) == "x" * 30_000  # at the threshold
    assert not out.exists()


def test_big_output_goes_to_disk_and_a_preview_stays(tmp_path):
    block = persist_large_output("toolu_big", BIG, directory=tmp_path)
    path = tmp_path / "toolu_big.txt"
    assert path.read_text(encoding="utf-8") == BIG
    assert block.startswith("<persisted-output>\n") and block.endswith("</persisted-output>")
    assert f"Full output: {path} (108,000 characters, 1,500 lines)" in block
    assert persisted_path(block) == str(path)
    assert len(block) < 2_300
    # the preview is cut at a line boundary: whole lines only
    head = block.split("):\n", 1)[1].rsplit("...\n", 1)[0]
    assert BIG.startswith(head) and head.endswith("\n") and len(head) <= 2_000
    assert head.count("\n") == 2_000 // 72  # 27 whole lines of 72 characters


def test_preview_cuts_at_a_near_line_boundary_only():
    assert preview("aaaaaaaa\nbbbb", 10) == "aaaaaaaa\n"
    assert preview("aa\nbbbbbbbbbb", 10) == "aa\nbbbbbbb"  # the newline is too far back
    assert preview("short", 10) == "short"
    assert preview("x" * 50, 0) == ""


def test_non_ascii_output_round_trips(tmp_path):
    text = "上下文压缩 ファイル naïve 🙂\n" * 3_000
    block = persist_large_output("toolu_cjk", text, directory=tmp_path, threshold=10_000, preview_chars=100)
    assert (tmp_path / "toolu_cjk.txt").read_text(encoding="utf-8") == text
    assert "上下文压缩" in block
    assert tokens.count_text(block) < tokens.count_text(text) / 50


def test_an_already_persisted_block_is_never_persisted_again(tmp_path):
    block = persist_large_output("toolu_1", BIG, directory=tmp_path, threshold=1_000, preview_chars=900)
    assert len(block) > 1_000  # over the threshold itself ...
    assert persist_large_output("toolu_2", block, directory=tmp_path, threshold=1_000, preview_chars=900) == block
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toolu_1.txt"]  # ... yet not persisted again


def test_a_file_in_the_workspace_is_named_relative_to_it(tmp_path):
    block = persist_large_output("toolu_1", BIG, directory=tmp_path / "ws" / ".r", relative_to=tmp_path / "ws")
    assert persisted_path(block) == ".r/toolu_1.txt"
    outside = persist_large_output("toolu_2", BIG, directory=tmp_path / "r", relative_to=tmp_path / "ws")
    assert persisted_path(outside) == str(tmp_path / "r" / "toolu_2.txt")


def test_a_tool_use_id_cannot_escape_the_directory(tmp_path):
    block = persist_large_output("../../etc/passwd", BIG, directory=tmp_path / "r")
    [written] = (tmp_path / "r").iterdir()
    assert re.fullmatch(r"_\.\._etc_passwd-[0-9a-f]{12}\.txt", written.name), written.name
    assert persisted_path(block) == str(written)


@pytest.mark.parametrize("first, second", [
    ("run/toolu_6", "run_toolu_6"),                             # '/' replaced by the '_' the other id has
    ("a:b", "a_b"), ("toolu_01" + "Q" * 90 + "1", "toolu_01" + "Q" * 90 + "2"),   # cut to a length
    ("toolu_6", "x/toolu_6"), (".hidden", "hidden"), ("é", "_"),
])
def test_two_ids_never_share_a_file(tmp_path, first, second):
    """A safe name that only replaced or cut characters gave 'run/toolu_6' and 'run_toolu_6' one file:
    the second output overwrote the first. An id that had to change gets a hash of the whole id."""
    a = persist_large_output(first, BIG, directory=tmp_path)
    b = persist_large_output(second, BIG.replace("x", "y"), directory=tmp_path)
    assert persisted_path(a) != persisted_path(b)
    assert Path(persisted_path(a)).read_text(encoding="utf-8") == BIG
    assert all(Path(persisted_path(x)).parent == tmp_path for x in (a, b))
    assert safe_name("toolu_01ABC") == "toolu_01ABC"  # a usual id is its own name


def test_lines_end_at_newline_in_the_block_and_in_its_pages(tmp_path):
    """A progress bar's '\\r' is inside a line: the block said 800 lines where read_slice (splitlines,
    and read_text's newline translation) paged through 9,600."""
    output = "".join(f"step {i:03d}" + "".join(f"\r{p}%" for p in range(0, 101, 10)) + "\n" for i in range(800))
    block = persist_large_output("toolu_1", output, directory=tmp_path)
    assert "(" + f"{len(output):,} characters, 800 lines)" in block
    page = read_slice(Path(persisted_path(block)), offset=799)
    assert page.startswith("step 798\r0%") and page.endswith("step 799\r0%\r10%\r20%\r30%\r40%\r50%\r60%\r70%"
                                                              "\r80%\r90%\r100%\n")


@pytest.mark.parametrize("kwargs, message", [
    ({"threshold": -1}, "threshold must be"),
    ({"preview_chars": -5}, "preview_chars must be"),
    ({"threshold": 100, "preview_chars": 200}, "must not be larger than threshold"),
    ({"threshold": 1.5}, "threshold must be"),
])
def test_invalid_sizes_are_a_clear_value_error(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        persist_large_output("toolu_1", BIG, directory=tmp_path, **kwargs)
    with pytest.raises(ValueError, match=message):
        tool_result_budget([], directory=tmp_path, **kwargs)


# ---------------------------------------------------------------- tool_result_budget

def turn(*results, text_beside=False):
    uses = [{"type": "tool_use", "id": f"toolu_{k}", "name": "bash", "input": {"command": f"cmd {k}"}}
            for k in range(len(results))]
    answers = [{"type": "tool_result", "tool_use_id": f"toolu_{k}", "content": r} for k, r in enumerate(results)]
    if text_beside:
        answers.append({"type": "text", "text": "also this"})
    return [{"role": "assistant", "content": uses}, {"role": "user", "content": answers}]


def test_budget_persists_only_the_newest_turns_big_results_in_place(tmp_path):
    old = [{"role": "user", "content": "go"}] + turn(BIG)
    old[2]["content"][0]["tool_use_id"] = old[1]["content"][0]["id"] = "toolu_old"
    messages = old + turn("small", BIG, [{"type": "text", "text": BIG}], text_beside=True)
    before = copy.deepcopy(messages)
    out = tool_result_budget(messages, directory=tmp_path)
    assert out is messages  # changed in place, and returned
    assert messages[:3] == before[:3]  # an older turn is not this layer's business
    newest = messages[-1]["content"]
    assert newest[0]["content"] == "small"
    assert newest[1]["content"].startswith("<persisted-output>")
    assert newest[2]["content"].startswith("<persisted-output>")  # list content: persisted as its text
    assert newest[3] == {"type": "text", "text": "also this"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toolu_1.txt", "toolu_2.txt"]
    assert (tmp_path / "toolu_2.txt").read_text(encoding="utf-8") == BIG
    assert_api_valid(messages)
    assert tokens.count_message(messages[-1]) < tokens.count_message(before[-1]) / 10


def test_budget_keeps_is_error_and_images_beside_the_text(tmp_path):
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    messages = [{"role": "user", "content": "go"}] + turn([{"type": "text", "text": BIG}, image])
    messages[-1]["content"][0]["is_error"] = True
    tool_result_budget(messages, directory=tmp_path)
    result = messages[-1]["content"][0]
    assert result["is_error"] is True
    assert result["content"][0]["text"].startswith("<persisted-output>") and result["content"][1] == image


@pytest.mark.parametrize("messages", [[], [{"role": "user", "content": "x" * 50_000}],
                                      [{"role": "user", "content": "go"},
                                       {"role": "assistant", "content": [{"type": "text", "text": "y" * 50_000}]}]])
def test_budget_leaves_histories_without_a_results_turn_alone(tmp_path, messages):
    before = copy.deepcopy(messages)
    assert tool_result_budget(messages, directory=tmp_path) == before
    assert not any(tmp_path.iterdir())


# examples: the profile's (conftest.py); the budget reads only the newest turn: short histories are enough
@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@given(histories(min_turns=1, max_turns=4))
def test_property_budget_is_valid_smaller_and_loses_nothing(tmp_path_factory, messages):
    directory = tmp_path_factory.mktemp("results")
    before = copy.deepcopy(messages)
    out = tool_result_budget(messages, directory=directory, threshold=3_000, preview_chars=500)
    assert_api_valid(out)
    assert tokens.count_messages(out) <= tokens.count_messages(before)
    assert out[:-1] == before[:-1]
    for new, old in zip(out[-1]["content"] if isinstance(out[-1]["content"], list) else [],
                        before[-1]["content"] if isinstance(before[-1]["content"], list) else []):
        if new == old:
            continue  # kept as it was, in the context
        path = persisted_path(new["content"])  # dropped from the context: on disk, named by the preview
        assert path and Path(path).read_text(encoding="utf-8") == result_text(old["content"])
        assert new.get("is_error") == old.get("is_error") and new["tool_use_id"] == old["tool_use_id"]


# ---------------------------------------------------------------- the cache breakpoint

def test_breakpoint_marks_the_last_block_of_a_copy():
    messages = [{"role": "user", "content": "go"}] + turn("a", "b")
    before = copy.deepcopy(messages)
    sent = with_cache_breakpoint(messages)
    assert messages == before  # the history is never written
    assert sent[:-1] == messages[:-1]
    assert sent[-1]["content"][-1] == {**messages[-1]["content"][-1], "cache_control": {"type": "ephemeral"}}
    assert sum("cache_control" in b for m in sent for b in m["content"] if isinstance(b, dict)) == 1
    assert_api_valid(sent)


def test_breakpoint_on_string_content_and_on_nothing_to_mark():
    sent = with_cache_breakpoint([{"role": "user", "content": "héllo"}])
    assert sent == [{"role": "user", "content": [{"type": "text", "text": "héllo",
                                                  "cache_control": {"type": "ephemeral"}}]}]
    assert with_cache_breakpoint([]) == []
    empty_final = [{"role": "user", "content": "q"}, {"role": "assistant", "content": ""}]
    assert with_cache_breakpoint(empty_final) == empty_final


def test_breakpoint_makes_the_next_request_read_the_cache(client, model):
    history = [{"role": "user", "content": "Say hi. " + "word " * 3_000}]
    body = {"model": "offline", "max_tokens": 50}
    first = client.messages.create(**body, messages=with_cache_breakpoint(history))
    history += [{"role": "assistant", "content": [{"type": "text", "text": first.content[0].text}]},
                {"role": "user", "content": "And now?"}]
    second = client.messages.create(**body, messages=with_cache_breakpoint(history))
    assert first.usage.cache_creation_input_tokens > 1_000 and first.usage.cache_read_input_tokens == 0
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    json.dumps(history)
    assert "cache_control" not in json.dumps(history)

# ---------------------------------------------------------------- the s05 agent

SEQ = "".join(f"{i}\n" for i in range(1, 20_001))  # what `seq 1 20000` prints: 108,894 characters


def test_a_command_that_prints_100k_characters(tmp_path):
    """The lesson: s04 cuts it at 50,000 and still overflows a small window; s05 keeps it all on disk."""
    ws = tmp_path / "ws"
    ws.mkdir()
    client = offline_client(OfflineModel(context_window=10_000), max_retries=0)
    with pytest.raises(Exception, match="prompt is too long"):
        HooksAgent(client, workspace=ws, approve=always_approve).ask("Run `seq 1 20000`")
    events, seen_by_hook = [], []
    agent = Agent(client, workspace=ws, approve=always_approve,  # (sizes as they were at the event)
                  on_event=lambda kind, data: events.append((kind, {**data, "size": len(json.dumps(data,
                                                                                               default=str))})))
    agent.register_hook("PreCompact", lambda layer, messages: seen_by_hook.append(
        (layer, len(messages[-1]["content"][0]["content"]))))
    history = []
    answer = agent.ask("Run `seq 1 20000`", history)
    (path,) = (ws / ".tool_results").iterdir()
    assert path.read_text(encoding="utf-8") == SEQ  # all of it: no 50,000 cut any more
    assert path.name in answer
    result = history[2]["content"][0]["content"]
    assert result.startswith("<persisted-output>") and persisted_path(result) == f".tool_results/{path.name}"
    assert "(108,894 characters, 20,000 lines)" in result
    (budget,) = [d for kind, d in events if kind == "compact"]
    assert budget["layer"] == "budget" and budget["tokens_before"] > 30_000 and budget["tokens_after"] < 1_000
    assert seen_by_hook == [("budget", len(SEQ))]  # PreCompact saw the turn before it was rewritten
    (tool_event,) = [d for kind, d in events if kind == "tool"]
    assert tool_event["size"] > len(SEQ)  # the tool event carried all the tool returned


@pytest.mark.parametrize("limit, n_pages", [(None, 10), (20_000, 4)])  # bound by lines, by characters
def test_reading_a_persisted_file_pages_it_and_never_persists_again(tmp_path, client, limit, n_pages):
    ws = tmp_path / "ws"
    ws.mkdir()
    agent = Agent(client, workspace=ws, results_dir=ws / "results", approve=always_approve)
    block = persist_large_output("toolu_big", SEQ, directory=agent.results_dir)
    messages = [{"role": "user", "content": "page through it"}]
    pages, offset = [], 1
    for k in range(20):  # the model reads on, page after page, with what each footer says
        call = {"type": "tool_use", "id": f"toolu_read{k}", "name": "read_file",
                "input": {"path": persisted_path(block), "offset": offset, **({"limit": limit} if limit else {})}}
        messages += [{"role": "assistant", "content": [call]},
                     {"role": "user", "content": [agent.run_tool(call)]}]
        agent.prepare(messages)  # the budget runs before every request
        text = messages[-1]["content"][0]["content"]
        assert not text.startswith("<persisted-output>") and len(text) <= agent.persist_threshold
        page, _, footer = text.partition("[lines ")
        pages.append(page)
        if not footer:
            break
        offset = int(footer.rsplit("offset=", 1)[1].rstrip("]"))
    assert "".join(pages) == SEQ and len(pages) == n_pages
    assert [p.name for p in agent.results_dir.iterdir()] == ["toolu_big.txt"]
    assert_api_valid(messages)


def test_persisted_reads_stay_in_their_folder(tmp_path, client):
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "secret.txt").write_text("no")
    agent = Agent(client, workspace=ws, results_dir=ws / "results")
    persist_large_output("toolu_1", SEQ, directory=agent.results_dir)
    ok = agent.execute("read_file", {"path": str(agent.results_dir / "toolu_1.txt"), "limit": 2})
    assert ok.startswith("1\n2\n[lines 1-2 of 20,000 shown: read on with offset=3]")
    for path in (str(tmp_path / "secret.txt"), str(agent.results_dir / ".." / ".." / "secret.txt"), "../secret.txt"):
        with pytest.raises(ToolError, match="outside the workspace"):
            agent.execute("read_file", {"path": path})


def test_read_slice_edges(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("a" * 500 + "\nshort\n")
    assert read_slice(path, 1, 10, max_chars=300).startswith("a" * 180 + "\n[lines 1-1 of 2 shown")
    assert read_slice(path, 2, 10, max_chars=300) == "short\n"
    with pytest.raises(ToolError, match="offset 9 is past the end"):
        read_slice(path, 9)


def test_bash_keeps_up_to_its_own_cap(tmp_path, client):
    ws = tmp_path / "ws"
    ws.mkdir()
    agent = Agent(client, workspace=ws, bash_cap=40_000)
    out = agent.execute("bash", {"command": "seq 1 20000"})
    assert out.startswith(SEQ[:40_000]) and "more characters" in out and len(out) < 40_100
    assert "saved to a file" in next(t["description"] for t in agent.tools if t["name"] == "bash")


def test_requests_carry_one_breakpoint_and_read_the_cache(tmp_path, client):
    ws = make_workspace(tmp_path / "ws", files=6, lines=80)
    sent, usage = [], []

    def on_event(kind, data):
        if kind == "request":
            sent.append(json.dumps(data["messages"]))
        elif kind == "response":
            usage.append(data["response"].usage)
    history = []
    Agent(client, workspace=ws, approve=always_approve, on_event=on_event).ask(
        "Read every Python file in this folder, one at a time", history)
    assert all(s.count('"cache_control"') == 1 for s in sent)
    assert "cache_control" not in json.dumps(history)
    assert usage[0].cache_read_input_tokens == 0
    assert all(u.cache_read_input_tokens > 1_000 for u in usage[3:])  # each request reuses the last one's prefix


@pytest.mark.parametrize("kwargs, message", [
    ({"persist_threshold": 0, "preview_chars": 0}, "persist_threshold must be >= 1"),
    ({"persist_threshold": 1_000, "preview_chars": 2_000}, "must not be larger than threshold"),
    ({"bash_cap": 10_000}, "bash_cap"),
    ({"persist_threshold": -3}, "threshold must be"),
])
def test_agent_invalid_values_fail_at_construction(client, workspace, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Agent(client, workspace=workspace, **kwargs)


# ---------------------------------------------------------------- the lesson's exercise

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "s05_budget.ipynb"


def test_exercise_reference_is_the_module_function_and_passes():
    assert exercise.reference is persist_large_output
    result = exercise.check(persist_large_output)
    assert result and result.report() == "✓ persist_large_output: 13/13 cases pass"


def test_exercise_starter_is_the_notebook_cell_and_fails_saying_why():
    from lessonkit.exercises.s05_budget import cache_exercise

    assert exercise_cells(LESSON) == [exercise.starter.rstrip("\n"), cache_exercise.starter.rstrip("\n")]
    result = exercise.check(exercise.starter_function())
    failures = dict(result.failures)
    assert set(failures) == {"a 108,000-character output", "the folder does not exist yet",
                             "a tool_use_id with a path in it", "an output that is already a preview",
                             "a last line without a newline", "two ids that differ before a '/'",
                             "two ids that differ in '/' and '_'", "an output with carriage returns (a progress bar)"}
    assert failures["a 108,000-character output"].startswith(
        "the preview ends in the middle of line 28 ('line 00027 xxx")
    assert failures["the folder does not exist yet"].startswith(
        "raised FileNotFoundError: [Errno 2] No such file or directory: 'new/results/toolu_1.txt'")
    assert failures["a tool_use_id with a path in it"].startswith("wrote escape.txt, outside results/")
    assert failures["an output that is already a preview"].startswith(
        "wrote results/toolu_3.txt: it is already the preview of a persisted file")
    report = result.report()
    assert "lk-s05-" not in report and tempfile.gettempdir() not in report  # no temporary paths


def first_lines(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """Everything right but the preview: cut at the FIRST newline."""
    if len(output) <= threshold or output.startswith("<persisted-output>"):
        return output
    block = persist_large_output(tool_use_id, output, directory=directory, threshold=threshold,
                                 preview_chars=preview_chars)
    head = output[:preview_chars]
    short = head[:head.find("\n") + 1] if "\n" in head else head
    return block.replace(preview(output, preview_chars), short, 1)


def names_another_file(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """Writes the file, but the block names a file that is not there."""
    block = persist_large_output(tool_use_id, output, directory=directory, threshold=threshold,
                                 preview_chars=preview_chars)
    return block.replace(f"{tool_use_id}.txt", "output.txt") if block is not output else output


def keeps_everything(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """Never persists anything."""
    return output


def two_files(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """Keeps a backup copy beside the file."""
    block = persist_large_output(tool_use_id, output, directory=directory, threshold=threshold,
                                 preview_chars=preview_chars)
    if block is not output:
        (Path(directory) / "backup.txt").write_text(output, encoding="utf-8")
    return block


@pytest.mark.parametrize("solution, failing, message", [
    (first_lines, {"a 108,000-character output", "the folder does not exist yet", "a tool_use_id with a path in it",
                   "a last line without a newline", "an output with carriage returns (a progress bar)"},
     "the preview has 72 characters: show at least 80%"),
    (names_another_file, {"a 108,000-character output", "one long line", "the folder does not exist yet",
                          "non-ASCII text", "a last line without a newline", "two ids that differ before a '/'",
                          "two ids that differ in '/' and '_'", "an output with carriage returns (a progress bar)"}, "the block names "),
    (keeps_everything, {"a 108,000-character output", "one long line", "the folder does not exist yet",
                        "a tool_use_id with a path in it", "non-ASCII text", "a last line without a newline",
                        "two ids that differ before a '/'", "two ids that differ in '/' and '_'",
                        "two long ids that differ only at the end", "an output with carriage returns (a progress bar)"},
     "wrote no file, returned "),
    (two_files, {"a 108,000-character output", "one long line", "the folder does not exist yet",
                 "a tool_use_id with a path in it", "non-ASCII text", "a last line without a newline", "an output with carriage returns (a progress bar)"},
     "wrote 2 files ("),
])
def test_exercise_names_what_a_wrong_answer_gets_wrong(solution, failing, message):
    result = exercise.check(solution)
    assert {name for name, _ in result.failures} == failing
    assert any(reason.startswith(message) for _, reason in result.failures)


def test_exercise_gives_each_case_a_fresh_folder_and_removes_them():
    seen = []
    exercise.check(lambda tool_use_id, output, *, directory, **kw: seen.append(Path(directory)) or
                   persist_large_output(tool_use_id, output, directory=directory, **kw))
    assert len({p.parent for p in seen}) == len(seen) - 3 == 13  # each two-id case calls twice in one box
    assert not any(p.exists() for p in seen) and not seen[0].parent.parent.exists()


# ---------------------------------------------------------------- issue 9: the results folder

def test_tool_results_escape_a_results_folder_outside_the_workspace_is_refused_when_made(tmp_path, client):
    """A cloned repo may ship `.tool_results` as a symlink to elsewhere: before, the agent read and
    wrote through it; now the agent is not made, with one line saying why."""
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (ws / ".tool_results").symlink_to(outside)
    with pytest.raises(ValueError, match=r"^results_dir: path '\.tool_results' is outside the workspace "
                                         r"\(through a symlink to .*outside\)"):
        Agent(client, workspace=ws)
    for folder in (tmp_path / "elsewhere", "../elsewhere"):
        with pytest.raises(ValueError, match="results_dir: path .* is outside the workspace"):
            Agent(client, workspace=ws, results_dir=folder)


def test_a_results_folder_swapped_for_a_symlink_later_is_still_refused_by_read_file(tmp_path, client):
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("s3cret\n")
    agent = Agent(client, workspace=ws)
    (ws / ".tool_results").symlink_to(outside)  # made later, by a command
    with pytest.raises(ToolError, match="outside the workspace"):
        agent.execute("read_file", {"path": ".tool_results/secret.txt"})
    result = agent.run_tool({"type": "tool_use", "id": "t1", "name": "read_file",
                             "input": {"path": ".tool_results/secret.txt"}})
    assert result["is_error"] and "s3cret" not in result["content"]


def test_transcript_can_be_wiped_by_the_agent_not_the_results_folder_by_the_file_tools(tmp_path, client):
    ws = tmp_path / "ws"
    ws.mkdir()
    agent = Agent(client, workspace=ws, approve=lambda call: False)
    persist_large_output("toolu_1", SEQ, directory=agent.results_dir)
    for name, tool_input in (("write_file", {"path": ".tool_results/toolu_1.txt", "content": "gone"}),
                             ("edit_file", {"path": ".tool_results/toolu_1.txt", "old_string": "1\n2\n",
                                            "new_string": "x"}),
                             ("write_file", {"path": str(ws / ".tool_results" / "new.txt"), "content": "x"})):
        with pytest.raises(ToolError, match="is in .tool_results, the agent's own record: the file tools "
                                            "read there but do not write"):
            agent.execute(name, tool_input)
    reason = agent.permission({"type": "tool_use", "id": "t", "name": "bash",
                               "input": {"command": ": > .tool_results/toolu_1.txt"}})
    assert reason == ("Permission denied: `: > .tool_results/toolu_1.txt` is not known to only read "
                      "(`> .tool_results/toolu_1.txt` writes to a file), and the user did not approve it")
    assert (agent.results_dir / "toolu_1.txt").read_text() == SEQ and not (agent.results_dir / "new.txt").exists()
    assert agent.execute("read_file", {"path": ".tool_results/toolu_1.txt", "limit": 1}).startswith("1\n")
    assert agent.execute("write_file", {"path": "notes.txt", "content": "ok"}).startswith("Created notes.txt")


def test_special_and_huge_files_in_the_results_folder_are_refused(tmp_path, client):
    ws = tmp_path / "ws"
    ws.mkdir()
    agent = Agent(client, workspace=ws)
    agent.results_dir.mkdir()
    (agent.results_dir / "zeros.txt").write_bytes(b"\x00" * 1000)
    with pytest.raises(ToolError, match="zeros.txt is a binary file"):
        agent.execute("read_file", {"path": ".tool_results/zeros.txt"})
    with open(agent.results_dir / "huge.txt", "wb") as f:
        f.truncate(4_000_001)  # sparse: more bytes than BASH_CAP characters can take
    with pytest.raises(ToolError, match="huge.txt is 4,000,001 bytes, more than a saved output can be"):
        agent.execute("read_file", {"path": ".tool_results/huge.txt"})


def test_exercise_rejects_wrong_sizes_and_a_sanitiser_that_lets_two_ids_share_a_file():
    """os.path.basename as the sanitiser and a line count off by one passed; so did, on held-out tries,
    replace('/', '_'), a hash of the id's first characters, a name cut to 16 characters, lines by
    str.splitlines() and a preview's size stated as preview_chars or in bytes. Each is told what it is."""
    import hashlib
    import os

    from lessonkit.exercises.s05_budget.persist import CLOSE, OPEN, preview

    def answer(name_of, lines_of, chars_of=len, shown_of=len):
        def persist(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
            if len(output) <= threshold or output.startswith(OPEN):
                return output
            Path(directory).mkdir(parents=True, exist_ok=True)
            path = Path(directory) / f"{name_of(tool_use_id)}.txt"
            path.write_text(output, encoding="utf-8")
            head = preview(output, preview_chars)
            return (f"{OPEN}\nFull output: {path} ({chars_of(output):,} characters, {lines_of(output):,} lines)\n"
                    f"Preview (first {shown_of(head):,} characters):\n{head}\n...\n{CLOSE}")
        return persist

    replaced = lambda i: re.sub(r"[^A-Za-z0-9_.-]", "_", i).strip(".")
    hashed = lambda i: replaced(i) if replaced(i) == i else f"{replaced(i)}-{hashlib.sha1(i.encode()).hexdigest()[:10]}"
    right = lambda text: text.count("\n") + (not text.endswith("\n"))
    assert exercise.check(answer(hashed, right))
    for name_of, lines_of, chars_of, shown_of, says in [
        (hashed, lambda t: t.count("\n"), len, len, "the block says 0 lines; the output has 1"),
        (hashed, lambda t: t.count("\n") + 1, len, len, "the block says 1,501 lines; the output has 1,500"),
        (hashed, lambda t: len(t.splitlines()), len, len, "str.splitlines() also ends a line at '\\r'"),
        (hashed, right, lambda t: len(t.encode()), len, "the output has 20,200: that is its size in bytes"),
        (hashed, right, lambda t: len(t.strip()), len, "the output was stripped before it was counted"),
        (hashed, right, len, lambda h: 2_000, "that is preview_chars, but the preview was cut at a newline"),
        (hashed, right, len, lambda h: len(h.encode()), "it shows 100: state len(preview), the characters shown: "
                                                        "that is its size in bytes"),
        (lambda i: i.rsplit("/", 1)[-1], right, len, len, "the name drops what comes before a '/' (basename)"),
        (os.path.basename, right, len, len, "were given the same file ('toolu_6.txt')"),
        (lambda i: i.replace("/", "_"), right, len, len, "replacing each unsafe character with '_' makes "
                                                         "'run/toolu_7' and 'run_toolu_7' one name"),
        (replaced, right, len, len, "replacing each unsafe character with '_'"),
        (lambda i: hashlib.sha1(i[:8].encode()).hexdigest(), right, len, len,
         "differ only from character 99 on: the name is made from the start of the id alone"),
        (lambda i: replaced(i)[:16], right, len, len, "the name is made from the start of the id alone"),
    ]:
        report = str(exercise.check(answer(name_of, lines_of, chars_of, shown_of)))
        assert report.startswith("✗") and says in report, report
