"""The histories the safe_cut cases cut: a task that reads files one call per turn, and variations.

    reads(3)      u0 "Read every Python file..."  a1 tool_use(t1)  u1 tool_result(t1)  a2 ...  u3
    parallel()    a2 makes two calls, answered together in one user message
    noted()       a tool_result with a hook's note beside it; an error result as a list of blocks
    follow_up()   a finished task, then a new prompt as a plain string, and its first turn
    follow_up(as_blocks=True)   the same, the new prompt as a list of text blocks (a prompt with an
                  attachment, a reminder beside it): a list content is not a tool result

Example: [m["role"] for m in reads(1, final=True)] -> ['user', 'assistant', 'user', 'assistant']
"""

from __future__ import annotations

TASK_TEXT = "Read every Python file in this folder, one at a time"


def use(n: int, path: str) -> dict:
    return {"type": "tool_use", "id": f"toolu_{n:02d}", "name": "read_file", "input": {"path": path}}


def result(n: int, content="def f():\n    return 1\n", **extra) -> dict:
    return {"type": "tool_result", "tool_use_id": f"toolu_{n:02d}", "content": content, **extra}


def reads(n: int, *, final: bool = False) -> list:
    """u0, then n turns: (assistant text + read_file call, user tool_result); optionally a final answer."""
    messages = [{"role": "user", "content": TASK_TEXT}]
    for t in range(1, n + 1):
        messages += [{"role": "assistant", "content": [{"type": "text", "text": f"Reading ({t}/{n})."},
                                                       use(t, f"app_{t:02d}.py")]},
                     {"role": "user", "content": [result(t)]}]
    if final:
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"Read {n} files."}]})
    return messages


def parallel() -> list:
    """u0, a1 (one call), u1, then a2 with two calls answered together in u2, a3, u3."""
    h = reads(1)
    h += [{"role": "assistant", "content": [{"type": "text", "text": "Two at once."},
                                            use(2, "app_02.py"), use(3, "app_03.py")]},
          {"role": "user", "content": [result(2), result(3)]}]
    h += [{"role": "assistant", "content": [{"type": "text", "text": "One more."}, use(4, "app_04.py")]},
          {"role": "user", "content": [result(4)]}]
    return h


def noted() -> list:
    """reads(3) where u2 carries a hook's note beside its tool_result, and u3 is an error as a list of blocks."""
    h = reads(3)
    h[4]["content"].append({"type": "text", "text": "(a PostToolUse hook: 1 secret redacted)"})
    h[6]["content"] = [result(3, [{"type": "text", "text": "No such file: app_03.py"}], is_error=True)]
    return h


def follow_up(*, as_blocks: bool = False) -> list:
    """A whole task (u0 .. a3), then a new prompt u4 (a plain string, or a list of text blocks), and its
    first turn."""
    h = reads(1, final=True)
    prompt = "Now list the folder"
    h.append({"role": "user", "content": [{"type": "text", "text": prompt},
                                          {"type": "text", "text": "(notes.md is attached)"}] if as_blocks else prompt})
    h += [{"role": "assistant", "content": [{"type": "text", "text": "Listing."},
                                            {"type": "tool_use", "id": "toolu_09", "name": "list_dir",
                                             "input": {"path": "."}}]},
          {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_09",
                                        "content": "app_01.py"}]}]
    return h
