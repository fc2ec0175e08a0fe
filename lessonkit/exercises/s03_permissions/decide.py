"""How a case runs the student's check_permission: with a recording `approve`, into a Decision.

    decide(fn)(call, answer) -> Decision   what fn returned (or raised), and whether it asked
    Decision.probe(command)  -> Decision   the same fn, asked about another bash command
    outcome(runs, asked)     -> str        the decision as one phrase, for the report

`answer` is what approve(call) returns (True, False, "no", ...), or RAISES for an approve that
raises EOFError, like input() with no terminal.

Example: str(decide(substrings)(bash("rm -r build"), "no")) -> 'ran after asking'
"""

from __future__ import annotations

from lessonkit.i18n import tr

RAISES = "raises"  # an approve with nobody to ask


def bash(command: str) -> dict:
    return {"type": "tool_use", "id": "toolu_01", "name": "bash", "input": {"command": command}}


class Decision:
    """What the student's function decided, whether it asked, and a way to ask it again about
    another command (`probe`), so that a report can tell one mistake from another."""

    def __init__(self, verdict, asked: bool, escaped: Exception | None = None, probe=None):
        self.verdict, self.asked, self.escaped, self.probe = verdict, asked, escaped, probe

    @property
    def runs(self) -> bool:
        return self.verdict is None and self.escaped is None

    def __str__(self) -> str:
        if self.escaped is not None:
            return tr("raised {error}: {message}", error=type(self.escaped).__name__, message=self.escaped)
        if self.verdict is not None and not isinstance(self.verdict, str):
            if self.asked:
                return tr("returned {value} (return None to allow, or a reason string to refuse) after asking",
                          value=repr(self.verdict))
            return tr("returned {value} (return None to allow, or a reason string to refuse) without asking",
                      value=repr(self.verdict))
        return outcome(self.verdict is None, self.asked)


def outcome(runs: bool, asked: bool) -> str:
    """What happened to the call, as one phrase. Example: outcome(True, False) -> 'ran without asking'"""
    if runs:
        return tr("ran after asking") if asked else tr("ran without asking")
    return tr("was refused after asking") if asked else tr("was refused without asking")


def decide(fn, env=None):
    """The student's fn as the cases call it: (call, answer) -> Decision.

    answer: what approve(call) returns (True, False, "no", ...), or RAISES for an
    approve that raises EOFError, like input() with no terminal. That EOFError escaping
    the student's function is a Decision too (`escaped`); any other exception is the
    student's own and reaches check(), which reports it.
    """
    def run(call, answer):
        asked, nobody = [], EOFError("no terminal to ask on")

        def approve(c):
            asked.append(c)
            if answer == RAISES:
                raise nobody
            return answer
        try:
            verdict = fn(call, approve)
        except EOFError as exc:
            if exc is not nobody:
                raise
            return Decision(None, True, exc, probe)
        return Decision(verdict, bool(asked), probe=probe)

    def probe(command: str, answer=False):
        """The decision on another bash command, or None if that raised."""
        try:
            return run(bash(command), answer)
        except Exception:  # noqa: BLE001 -- a probe only adds to a report, it never fails a case
            return None
    return run
