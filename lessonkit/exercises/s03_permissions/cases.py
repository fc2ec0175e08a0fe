"""The cases of the s03 exercise: a bash command (or a file tool), what approve answers,
and whether the call should run and whether the user should be asked.

    case(name, call, answer, runs, asked, same_as) -> Case   checked by expect(...)
    expect(...)(got: Decision) -> None | "what happened; expected: ...: why"  (why: explain.py)

Example: case("`sudo ls`", bash("sudo ls"), True, runs=False, asked=False).verdict(
             decide(asks_first)(bash("sudo ls"), True))
  -> "ran after asking; expected: was refused without asking: `sudo ls` is on the deny list: the
      deny list comes first, and a denied command is refused before anyone is asked"
"""

from __future__ import annotations

from lessonkit.i18n import tr

from .. import Case
from .decide import RAISES, Decision, bash, outcome
from .explain import explain


def expect(call: dict, answer, runs: bool, asked: bool, *, same_as: str | None = None):
    """A verdict: the call ran (or was refused), after asking (or without); a wrong decision is explained
    (`same_as`: another spelling of the same command, probed to tell a missed spelling from a wrong order)."""
    want = outcome(runs, asked)

    def verdict(got: Decision) -> str | None:
        ok = isinstance(got.verdict, str) or got.verdict is None
        if ok and got.escaped is None and (got.verdict is None) == runs and got.asked == asked:
            return None
        problem = tr("{got}; expected: {want}", got=got, want=want)
        why = explain(call, answer, got, same_as)
        return tr("{problem}: {hint}", problem=problem, hint=why) if why else problem
    return verdict


def case(name: str, call: dict, answer, runs: bool, asked: bool, same_as: str | None = None) -> Case:
    """The case "check_permission(call, approve answering `answer`) runs/asks like this"."""
    return Case(name, (call, answer), expect(call, answer, runs, asked, same_as=same_as))


def cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: `explain` says why the decision found is wrong."""
    write = {"type": "tool_use", "id": "toolu_02", "name": "write_file",
             "input": {"path": "rm.txt", "content": "sudo rm -rf /"}}
    return [
        case("`ls -la`", bash("ls -la"), False, runs=True, asked=False),
        case("`echo perform` (a word that contains rm)", bash("echo perform"), False, runs=True, asked=False),
        case("`cat sudoers.txt` (a file named like a deny rule)", bash("cat sudoers.txt"), False,
             runs=True, asked=False),
        case("`grep -n \"sudo rm\" notes.txt` (sudo in quotes)", bash('grep -n "sudo rm" notes.txt'), False,
             runs=True, asked=False),
        case("`sed -i 's/a/b/' notes.txt` (writes, with no destructive word)", bash("sed -i 's/a/b/' notes.txt"),
             False, runs=False, asked=True),
        case("`rm -r build`, the user says yes", bash("rm -r build"), True, runs=True, asked=True),
        case("`rm -r build`, the user says no", bash("rm -r build"), False, runs=False, asked=True),
        case("`sudo ls`", bash("sudo ls"), True, runs=False, asked=False),
        case("`rm -fr /` (the disk, spelled another way)", bash("rm -fr /"), True, runs=False, asked=False,
             same_as="rm -rf /"),
        case("`mv a.py b.py`, approve returns 'no'", bash("mv a.py b.py"), "no", runs=False, asked=True),
        case("`rm x.py` with nobody to ask (approve raises)", bash("rm x.py"), RAISES, runs=False, asked=True),
        case("write_file (not a bash call)", write, False, runs=True, asked=False),
        # a line is more than its first word: each of these starts with a program that only reads
        case("`ls && rm -rf src` (a second command after &&)", bash("ls && rm -rf src"), False,
             runs=False, asked=True),
        case("`git status; rm notes.txt` (a second command after ;)", bash("git status; rm notes.txt"), False,
             runs=False, asked=True),
        case("`grep -q x f || rm f` (a second command after ||)", bash("grep -q x f || rm f"), False,
             runs=False, asked=True),
        case("`echo $(rm -rf build)` (a command inside $())", bash("echo $(rm -rf build)"), False,
             runs=False, asked=True),
        case("echo `touch x` (a command inside backticks)", bash("echo `touch x`"), False, runs=False, asked=True),
        case("`ls > app_01.py` (a redirect that writes)", bash("ls > app_01.py"), False, runs=False, asked=True),
        case("`cat notes.txt >> log.txt` (a redirect that appends)", bash("cat notes.txt >> log.txt"), False,
             runs=False, asked=True),
        case("`cat run.sh | bash` (a pipe into a shell)", bash("cat run.sh | bash"), False, runs=False, asked=True),
        case("`echo 'print(1)' | python3` (a pipe into an interpreter)", bash("echo 'print(1)' | python3"), False,
             runs=False, asked=True),
        case("`ls`, then `sed -i d notes.txt` on the next line (a second command after a newline)",
             bash("ls\nsed -i d notes.txt"), False, runs=False, asked=True),
        case("`ls & truncate -s 0 notes.txt` (a second command after &)", bash("ls & truncate -s 0 notes.txt"), False,
             runs=False, asked=True),
        case("`cat <(touch build.log)` (a command inside process substitution)", bash("cat <(touch build.log)"), False,
             runs=False, asked=True),
        case('`echo "$(touch x.txt)"` (a command inside $() inside double quotes)', bash('echo "$(touch x.txt)"'),
             False, runs=False, asked=True),
        case("`cat <<EOF` with `$(truncate -s 0 notes.txt)` in the here-doc",
             bash("cat <<EOF\n$(truncate -s 0 notes.txt)\nEOF"), False, runs=False, asked=True),
    ]
