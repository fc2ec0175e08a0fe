"""Counts read right in English at every place a count of 1 can reach: "1 line", "2 lines" (issue 24).

Each test feeds n=1 and n=2 to one place that writes a count. The stages speak English to the
model; the kit's own sentences go through i18n.trn, whose Chinese needs no plural (test_i18n.py).
The view's totals line is in test_views.py (Python and view.js), the REPL's line count in test_repl.py.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

ONE_TWO = pytest.mark.parametrize("n, s", [(1, ""), (2, "s")])  # a count, and its English plural ending


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv("LESSONS_LANG", "en")


@ONE_TWO
def test_s01_cap_output_counts_the_characters_cut(n, s):
    from s01_loop import cap_output

    assert cap_output("abc" + "x" * n, 3) == f"abc\n[... {n} more character{s} cut]"


@pytest.mark.parametrize("content, said", [("z", "1 line, 1 byte"), ("x\ny", "2 lines, 3 bytes"),
                                           ("hello\n", "1 line, 6 bytes")])
def test_s02_write_file_counts_lines_and_bytes(tmp_path, content, said):
    from s02_tools.files import write_file

    assert write_file(tmp_path, "f.txt", content) == f"Created f.txt: {said}"


@ONE_TWO
def test_s02_and_s05_reading_past_the_end_counts_the_lines(tmp_path, n, s):
    from s01_loop import ToolError
    from s02_tools.files import read_file
    from s05_budget.agent import read_slice

    (tmp_path / "f.txt").write_text("x\n" * n, encoding="utf-8")
    with pytest.raises(ToolError, match=rf"^'f.txt' has {n} line{s}: offset 5 is past the end$"):
        read_file(tmp_path, "f.txt", 5)
    with pytest.raises(ToolError, match=rf"^f.txt has {n} line{s}: offset 5 is past the end$"):
        read_slice(tmp_path / "f.txt", 5)


@pytest.mark.parametrize("lines, footer", [(2, "line 2 of 2"), (3, "lines 2-3 of 3")])
def test_s02_read_file_names_the_lines_it_left_out(tmp_path, lines, footer):
    from s02_tools.files import read_file

    (tmp_path / "f.txt").write_text("x\n" * lines, encoding="utf-8")
    assert read_file(tmp_path, "f.txt", 1, 1) == f"x\n[... {footer} not shown: read on with offset=2]"


@ONE_TWO
def test_s02_list_dir_counts_the_entries_not_shown(tmp_path, monkeypatch, n, s):
    from s02_tools import files

    monkeypatch.setattr(files, "LIST_LIMIT", 2)
    for i in range(2 + n):
        (tmp_path / f"f{i}.txt").write_text("", encoding="utf-8")
    more = "1 more entry" if n == 1 else "2 more entries"
    assert files.list_dir(tmp_path).endswith(f"\n[... {more} not shown]")


@ONE_TWO
def test_s06_summary_texts_count_the_messages(n, s):
    from s06_compact.summary import summary_message, summary_prompt

    was = "1 earlier message was" if n == 1 else "2 earlier messages were"
    assert summary_message("S", "t.jsonl", n)["content"].startswith(f"[Compacted] {was} summarized to free")
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}][:n]
    assert f"\n\nThe conversation ({n} message{s}, as JSON):\n" in summary_prompt(history)


@ONE_TWO
def test_s07_snip_marker_says_message_for_one_and_is_read_back(n, s):
    from s07_reactive.snip import marker, snip_compact_raw, snipped_count

    assert marker(n) == f"[snipped {n} message{s}]"
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(6)]
    out = snip_compact_raw(history, 6 - n, 1)
    assert out[1] == {"role": "user", "content": f"[snipped {n} message{s}]"}
    assert snipped_count({"role": "user", "content": [{"type": "text", "text": marker(n)}]}) == n


@ONE_TWO
def test_s08_truncation_marker_says_message_for_one_and_is_read_back(n, s):
    from s08_compact4.compactor import ContextCompactor
    from s08_compact4.summary import MARKERS

    first = {"role": "user", "content": "the task"}
    marked = ContextCompactor._mark_truncated(SimpleNamespace(transcript=None), first, n)
    assert marked["content"][0]["text"] == f"[Truncated {n} message{s}]"
    assert MARKERS.match(marked["content"][0]["text"])
    again = ContextCompactor._mark_truncated(SimpleNamespace(transcript=None), marked, 1)
    assert again["content"][0]["text"] == f"[Truncated {n + 1} messages]"  # the old count was read back


@ONE_TWO
def test_the_offline_model_counts_lines_left_out_and_files_deleted(n, s):
    from offline.answers.report import line
    from offline.conversation.output import output
    from offline.conversation.reading import Event

    assert output("\n".join(["a"] * (3 + n)), limit=3).endswith(f"(+{n} more line{s})")
    purge = SimpleNamespace(kind="purge", target=".", extra={"ext": ".log"},
                            calls=[("bash", {"command": "find . -name '*.log' -print -delete"})])
    deleted = "\n".join(f"./{i}.log" for i in range(n))
    said = line(purge, None, Event("user", "result", text=deleted + "\n[exit code 0]"))
    assert said.startswith(f"- deleted {n} .log file{s}: 0.log"), said


@ONE_TWO
def test_the_diff_view_counts_a_files_lines(n, s):
    from lessonkit.show.diffview import FileDiff, StageDiff

    diff = StageDiff("s01_loop", "s02_tools", [FileDiff("a.py", True, lines=n)])
    assert f"== s02_tools/a.py (new file, {n} line{s})" in diff.text()
    assert f"</code> (new, {n} line{s})</summary>" in diff._repr_html_()


@ONE_TWO
def test_s05_cache_check_counts_the_messages_left(n, s):
    from lessonkit.exercises.s05_budget.cache_verdicts import _changed

    history = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]
    assert _changed(history, history[:n]) == f"the history now has {n} message{s}, it had 3"


@ONE_TWO
def test_s06_micro_note_counts_the_results_it_replaced(tmp_path, monkeypatch, n, s):
    """Bug: s06's lesson showed "micro: ... · 1 old tool results -> placeholders"."""
    import s06_compact
    from lessonkit.backends.client import make_client

    agent = s06_compact.Agent(make_client("offline"), workspace=tmp_path, transcript_dir=tmp_path / "t",
                              keep_recent=1, min_chars=10)
    notes = []
    monkeypatch.setattr(agent, "compacted", lambda layer, messages, tokens, count, note: notes.append(note))
    history = [{"role": "user", "content": "go"}]
    for i in range(n + 1):  # the newest result is kept: n older ones are replaced
        history += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "read_file",
                                                       "input": {"path": "a.py"}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "x" * 500}]}]
    agent.micro(history)
    said = "1 old tool result -> a placeholder; full result in" if n == 1 else \
        "2 old tool results -> placeholders; full results in"
    assert notes and notes[0].startswith(said), notes
