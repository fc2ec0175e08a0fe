"""The histories the micro_compact cases compact: reads one call per turn, and two calls in one turn.

    reads(a, b, c)   u0 "Read the files, one at a time"  a1 tool_use(toolu_000)  u1 tool_result(a)  a2 ...
    parallel()       bash and list_dir called together (an error result, a list of blocks, a hook's
                     note beside them), then three reads numbered on from toolu_002
    LONG             60 lines of code, 2,400+ characters: long in characters and in tokens

Example: [m["role"] for m in reads(LONG, "x")] -> ['user', 'assistant', 'user', 'assistant', 'user']
"""

from __future__ import annotations

LONG = "".join(f"    value_{k} = compute({k})  # line {k}\n" for k in range(60))  # 2,400+ characters


def use(i: int, name: str = "read_file") -> dict:
    arg = {"command": f"cat f{i}.log"} if name == "bash" else {"path": f"f{i}.py"}
    return {"type": "tool_use", "id": f"toolu_{i:03d}", "name": name, "input": arg}


def result(i: int, content, **extra) -> dict:
    return {"type": "tool_result", "tool_use_id": f"toolu_{i:03d}", "content": content, **extra}


def reads(*contents, names=None) -> list:
    """A request, then one call per content (read_file unless `names` says), each answered."""
    names = names or ["read_file"] * len(contents)
    messages = [{"role": "user", "content": "Read the files, one at a time"}]
    for i, (content, name) in enumerate(zip(contents, names)):
        messages += [{"role": "assistant", "content": [{"type": "text", "text": f"Reading ({i + 1})."},
                                                       use(i, name)]},
                     {"role": "user", "content": [result(i, content)]}]
    return messages


def parallel() -> list:
    """Two calls in one turn (bash, list_dir; one an error, with a note beside), then three reads."""
    messages = [{"role": "user", "content": "Look around, then read the files"},
                {"role": "assistant", "content": [{"type": "text", "text": "Two at once."},
                                                  use(0, "bash"), use(1, "list_dir")]},
                {"role": "user", "content": [result(0, "cat: f0.log: No such file\n" * 8, is_error=True),
                                             result(1, [{"type": "text", "text": LONG}]),
                                             {"type": "text", "text": "(a note from a hook)"}]}]
    tail = reads(LONG, LONG, LONG)[1:]
    for m in tail:  # renumber the reads after the two parallel calls
        for b in m["content"]:
            if b.get("type") in ("tool_use", "tool_result"):
                key = "id" if b["type"] == "tool_use" else "tool_use_id"
                b[key] = f"toolu_{int(b[key][-3:]) + 2:03d}"
    return messages + tail
