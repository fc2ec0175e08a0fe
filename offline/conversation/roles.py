"""Which offered tool plays which role, and how to fill in its parameters.

The policy thinks in six roles: bash, read, write, edit, list, compact. Lessons
offer tools under many names (bash / shell / Bash, read_file / Read, write_file /
Write, edit_file / Edit, list_dir / LS / Glob, compact), with their own parameter
names. A tool plays a role if its name is one of the role's aliases (exact match,
any case), else if the name contains an alias of 4+ letters (TodoWrite,
NotebookEdit and MultiEdit are never picked). Parameter names come from the tool's `input_schema`.

Example: tool_roles([{"name": "Read", "input_schema": {"properties": {"file_path": {}}}}])
  -> {"read": <Read>};  make_input(<Read>, "read", {"path": "a.py"}) -> {"file_path": "a.py"}

With only a shell, the other roles become commands: read -> `cat`, list -> `ls`,
write -> `printf > file`, edit -> a python3 one-liner (see shell_call).

Not modeled: multi-command tools such as the text editor tool's view/create/str_replace.
"""

from __future__ import annotations

import shlex

ROLES = {  # role -> aliases, best first (lower case)
    "compact": ("compact", "compact_context", "compact_conversation"),
    "read": ("read_file", "read", "view", "view_file", "open_file", "cat", "file_read"),
    "write": ("write_file", "write", "create_file", "file_write", "save_file"),
    "edit": ("edit_file", "edit", "str_replace", "replace", "file_edit", "apply_edit"),
    "list": ("list_dir", "list_files", "list_directory", "ls", "glob", "list", "find_files"),
    "bash": ("bash", "shell", "run_bash", "run_shell", "run_command", "terminal", "exec", "sh",
             "execute_command", "command"),
}
NEVER = ("todo", "notebook", "multi")  # tools that contain a role's word but do something else
BY_NAME = {"delegate": "task", "memory": "memory"}  # tools used by their own name, not by a role:
#                                                    agent/delegate.py (s09) and agent/notes.py (s10)


def tool_roles(tools: list) -> dict[str, dict]:
    """Map each role to the offered tool that plays it. Example: [Read, Bash] -> {'read': Read, 'bash': Bash}"""
    found: dict[str, dict] = {}
    named = [(t.get("name", "").lower(), t) for t in tools or [] if isinstance(t, dict)]
    for exact in (True, False):
        for role, aliases in ROLES.items():
            if role in found:
                continue
            for alias in aliases:
                match = next((t for name, t in named if t not in found.values() and (
                    name == alias if exact else len(alias) >= 4 and alias in name
                    and not any(w in name for w in NEVER))), None)
                if match is not None:
                    found[role] = match
                    break
    return found


def param(tool: dict, *candidates: str) -> str:
    """The schema property that best matches the candidates (the first candidate if none does)."""
    props = list((tool.get("input_schema") or {}).get("properties") or {})
    for cand in candidates:
        for prop in props:
            if prop.lower() == cand:
                return prop
    for cand in candidates:
        for prop in props:
            if cand in prop.lower():
                return prop
    return candidates[0]


def is_glob(tool: dict) -> bool:
    """A list tool that takes a glob pattern (Glob) rather than a folder (list_dir, LS)."""
    props = (tool.get("input_schema") or {}).get("properties") or {}
    return "glob" in tool.get("name", "").lower() or ("pattern" in props and "path" not in props)


def make_input(tool: dict, role: str, args: dict) -> dict:
    """Translate role arguments into the tool's own parameter names.

    Role arguments: bash {command}; read {path}; write {path, content};
    edit {path, old, new}; list {path, pattern}; compact {focus}.
    """
    if role == "bash":
        return {param(tool, "command", "cmd", "script"): args["command"]}
    if role == "compact":
        props = (tool.get("input_schema") or {}).get("properties") or {}
        key = next((p for p in props if p.lower() in ("focus", "instructions", "topic")), None)
        return {key: args["focus"]} if key and args.get("focus") else {}
    if role == "list" and is_glob(tool):
        path = args.get("path", ".")
        pattern = args.get("pattern") or "*"
        return {param(tool, "pattern", "glob"): pattern if path in (".", "") else f"{path.rstrip('/')}/{pattern}"}
    out = {param(tool, "path", "file_path", "filepath", "filename", "file", "dir", "directory"):
           args.get("path", ".")}
    if role == "write":
        out[param(tool, "content", "text", "file_text", "data")] = args.get("content", "")
    if role == "edit":
        out[param(tool, "old_string", "old_str", "old_text", "old", "search", "find")] = args["old"]
        out[param(tool, "new_string", "new_str", "new_text", "new", "replace")] = args["new"]
    return out


def shell_call(role: str, args: dict) -> str:
    """The shell command that does a role's work when only a shell is offered.

    Example: shell_call("read", {"path": "a b.py"}) -> "cat 'a b.py'"
    """
    q = shlex.quote
    if role == "read":
        return f"cat {q(args['path'])}"
    if role == "list":
        return f"ls -la {q(args.get('path') or '.')}"
    if role == "write":
        path = args["path"]
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        make_dir = f"mkdir -p {q(folder)} && " if folder else ""
        content = args.get("content", "")
        end = "" if content.endswith("\n") else "\\n"  # the file ends with one newline, not two
        return f"{make_dir}printf '%s{end}' {q(content)} > {q(path)}"
    if role == "edit":
        script = ("import pathlib,sys; p=pathlib.Path(sys.argv[1]); t=p.read_text(); "
                  "sys.exit('error: text not found in '+sys.argv[1]) if sys.argv[2] not in t "
                  "else p.write_text(t.replace(sys.argv[2], sys.argv[3], 1))")
        return f"python3 -c {q(script)} {q(args['path'])} {q(args['old'])} {q(args['new'])}"
    raise ValueError(f"no shell command for the {role!r} role")


def to_calls(calls: list, roles: dict, tools: list) -> tuple[list, str | None]:
    """(tool name, input) pairs for a step's (role, args) calls, or the role nobody plays.

    A role with no tool of its own falls back to the shell when one is offered;
    "=Name" calls the offered tool Name with the args as they are.
    """
    out = []
    for role, args in calls:
        if role.startswith("="):
            tool = next((t for t in tools or [] if t.get("name") == role[1:]), None)
            if tool is None:
                return [], role[1:]
            out.append((tool["name"], dict(args)))
        elif role in roles:
            out.append((roles[role]["name"], make_input(roles[role], role, args)))
        elif "bash" in roles and role in ("read", "list", "write", "edit"):
            out.append((roles["bash"]["name"], make_input(roles["bash"], "bash", {"command": shell_call(role, args)})))
        else:
            return [], role
    return out, None
