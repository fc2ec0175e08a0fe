"""arena.sessions: what is replayed: recorded sessions read from any folder, or the kit's own long one.

    folders.py     read sessions: Messages-API traces and raw logs, from a file or a folder
    readers/       raw logs: Claude Code (every version), Agent SDK, Codex, mini-swe-agent, OpenHands
    session.py     one session: a history the API would accept, its logged usage and notes
    harness.py     what the recording harness really sent: Codex's output cut, Claude Code's restored files
    edits.py       small history edits every strategy shares (copy-on-write, pair-safe)
    generated.py   the kit's own agent doing long work on the offline model (small_session: the notebook's)
    codebase.py    the generated code base, test runner and planted bugs it works on

Example: load_traces(Path("traces")) -> ([Session(name="claudecode-aiworkflow-issue113-impl", ...), ...], notes)
"""
