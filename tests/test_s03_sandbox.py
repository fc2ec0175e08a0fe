"""s03's OS sandbox: real commands, in the real sandbox, in tmp_path; files compared before and after.

The classifier is made to misjudge on purpose (`Gullible` below calls every command read-only), so
each write is stopped by the kernel alone, not by the rules.
"""

from __future__ import annotations

import socket
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

from lessonkit.base.sandbox import MIN_ABI, Policy, Probe, confine, landlock_abi, probe
from offline import OfflineModel, offline_client
from s03_permissions import Agent, Verdict, always_approve, never_approve
from s03_permissions import loop as s03_loop
from s06_compact import Agent as TranscriptAgent
from s06_compact import read_transcript
from s08_compact4 import Agent as CompactAgent


@pytest.fixture
def sandbox():
    """The sandbox, where it is really there (probed by a confined command); elsewhere the test skips."""
    found = probe()
    if not found.ok:
        pytest.skip(f"no OS sandbox here: {found.why}")
    return found


class Gullible(Agent):
    """An s03 agent whose classifier calls every command read-only: only the sandbox is left."""

    def classify(self, command):
        used, _ = self.sandboxed()
        return Verdict(True, "only reads (misjudged on purpose)") if used else super().classify(command)


def snapshot(*roots: Path) -> dict:
    """Every path under `roots` with its bytes (None for a folder), mode, owner and modification time:
    what "unchanged" means here."""
    def state(p: Path):
        st = p.lstat()
        return (None if p.is_dir() or p.is_symlink() else p.read_bytes(), st.st_mode, st.st_uid, st.st_gid,
                None if p.is_dir() else st.st_mtime_ns)
    return {p: state(p) for root in roots for p in [root, *root.rglob("*")]}


def run(agent, command: str, call_id: str = "toolu_1") -> tuple[bool, str]:
    """The agent's own path for one bash call: permission, then run_allowed. (ran?, output)."""
    block = {"type": "tool_use", "id": call_id, "name": "bash", "input": {"command": command}}
    reason = agent.permission(block)
    if reason is not None:
        return False, reason
    result = agent.run_allowed(block)
    return True, str(result["content"])


@pytest.fixture
def tree(tmp_path):
    """A workspace with a file, a git repository, a record folder, and a file beside the workspace."""
    ws = tmp_path / "ws"
    (ws / ".transcripts").mkdir(parents=True)
    (ws / ".transcripts" / "session.jsonl").write_text('{"role": "user", "content": "hi"}\n')
    (ws / "notes.txt").write_text("alpha\nbeta\n")
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("print('hi')\n")
    (tmp_path / "sentinel.txt").write_text("outside\n")
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@x", "add", "notes.txt"], cwd=ws, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "one"], cwd=ws, check=True)
    return ws


class Recorded(Gullible):
    def record_dirs(self):
        return [self.workspace / ".transcripts"]


MISJUDGED = [  # each writes, deletes or runs something; the classifier let it through
    "echo x > notes.txt", "rm -rf ./*", "rm -rf .git", "find . -delete", "touch ../OUTSIDE",
    "rm ../sentinel.txt", ": > ../sentinel.txt", "sed -i d notes.txt", "mv notes.txt moved.txt",
    ": > .transcripts/session.jsonl", "rm -rf .transcripts", "mv .transcripts gone",
    "git commit --allow-empty -qm two", "git branch new", "ln -s /etc link", "mkdir made",
    "env -S 'touch made2'", "[[ 'a[$(rm -f notes.txt)]' -eq 0 ]]", "truncate -s 0 notes.txt",
    "python3 -c 'import os; os.remove(\"notes.txt\")'", "cp notes.txt copy.txt", "chmod 000 notes.txt",
]
METADATA = [  # each changes a file's mode, owner or times, not its bytes: Landlock does not cover these
    "chmod 600 ../sentinel.txt", "chmod -R 700 .git", "touch -d @0 notes.txt", "touch -d 2001-01-01 ../sentinel.txt",
    "chown 1:1 notes.txt", "chgrp -R 1 src", "touch -m .transcripts/session.jsonl", "chmod 000 .transcripts",
    "python3 -c 'import os; os.utime(\"src/app.py\", (0, 0))'",
]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("command", MISJUDGED)
def test_a_misjudged_command_run_unasked_changes_nothing(sandbox, tree, command):
    """Run without asking (read grant): no write lands in the workspace, beside it, or in the record."""
    agent = Recorded(object_client(), workspace=tree, approve=never_approve)
    before = snapshot(tree.parent)
    ran, _ = run(agent, command)
    assert ran and snapshot(tree.parent) == before


@pytest.mark.parametrize("approve", [never_approve, always_approve])
def test_no_command_changes_a_files_metadata_where_it_may_not_write(sandbox, tree, approve):
    """Unasked, nothing anywhere; approved, nothing outside the workspace or in the record. Each command of
    METADATA is tried in turn, in one call, and each is refused."""
    agent = Recorded(object_client(), workspace=tree, approve=approve)
    if approve is always_approve:
        agent.classify = lambda command: Verdict(False, "asks (on purpose)")
    outside = tree.parent / "sentinel.txt"
    guarded = [outside, tree / ".transcripts"] if approve is always_approve else [tree.parent]
    before = snapshot(*guarded)
    ran, output = run(agent, "; ".join(f"{c} || echo refused" for c in METADATA))
    assert ran and snapshot(*guarded) == before, output
    assert output.count("refused") >= (len(METADATA) if approve is never_approve else 3), output


def test_a_misjudged_command_has_no_privilege_outside_its_sandbox(sandbox, tree):
    """Root or not: a user namespace of its own, so no clock, hostname, module or other system setting."""
    agent = Gullible(object_client(), workspace=tree, approve=never_approve)
    host = subprocess.run(["hostname"], capture_output=True, text=True, check=True).stdout.strip()
    ran, output = run(agent, f"cat /proc/self/uid_map; hostname {host} && echo renamed")
    assert ran and output.split()[:3] != ["0", "0", "4294967295"] and "renamed" not in output, output


def test_a_misjudged_command_leaves_no_ipc_object_behind(sandbox, tree):
    queues = subprocess.run(["ipcs", "-q"], capture_output=True, text=True, check=True).stdout
    ran, output = run(Gullible(object_client(), workspace=tree, approve=never_approve), "ipcmk -Q")
    assert ran and "Message queue id" in output, output
    assert subprocess.run(["ipcs", "-q"], capture_output=True, text=True, check=True).stdout == queues


def test_a_misjudged_command_cannot_write_the_shared_temp_folder(sandbox, tree):
    shared = Path(tempfile.gettempdir()) / f"s03-shared-{tree.parent.name}"
    agent = Recorded(object_client(), workspace=tree, approve=never_approve)
    try:
        ran, output = run(agent, f"echo x > {shared}; echo y > /dev/shm/{shared.name}; mktemp")
        assert ran and not shared.exists() and not Path("/dev/shm", shared.name).exists()
        private = Path(output.strip().splitlines()[-2 if "[exit" in output else -1])
        assert private.name.startswith("tmp.") and not private.exists()  # its own temp dir: made, then gone
    finally:
        shared.unlink(missing_ok=True)
        Path("/dev/shm", shared.name).unlink(missing_ok=True)


def test_an_approved_command_writes_the_workspace_only(sandbox, tree):
    agent = Recorded(object_client(), workspace=tree, approve=always_approve)
    agent.classify = Agent.classify.__get__(agent)  # the real rules: `touch` asks, and is approved
    record, outside = snapshot(tree / ".transcripts"), (tree.parent / "sentinel.txt").read_text()
    ran, output = run(agent, "echo new > made.txt; rm notes.txt; : > ../sentinel.txt; "
                             ": > .transcripts/session.jsonl; rm -rf .transcripts")
    assert ran and (tree / "made.txt").read_text() == "new\n" and not (tree / "notes.txt").exists()
    assert (tree.parent / "sentinel.txt").read_text() == outside and snapshot(tree / ".transcripts") == record
    assert output.count("Read-only file system") >= 2, output  # beside the workspace, and the record


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("command", ["ls -la", "cat notes.txt", "grep -rn alpha .", "find . -name '*.py'",
                                     "git status", "git log --oneline", "git diff", "git show HEAD", "wc -l notes.txt",
                                     "head -n 1 notes.txt", "python3 --version", "du -sh ."])
def test_read_only_work_runs_unasked_in_the_sandbox_and_leaves_no_trace(sandbox, tree, command):
    agent = Agent(object_client(), workspace=tree, approve=never_approve)  # the real rules
    (tree / "notes.txt").write_text("alpha\nbeta\ngamma\n")  # a change for git diff and git status to see
    before = snapshot(tree.parent)
    ran, output = run(agent, command)
    assert ran and "[exit code" not in output, output
    assert snapshot(tree.parent) == before


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_pytest_runs_unasked_with_no_cache_and_no_bytecode_left_behind(sandbox, tree):
    (tree / "test_one.py").write_text("import tempfile\n\ndef test_ok(tmp_path):\n"
                                      "    (tmp_path / 'x').write_text('1')\n    assert tempfile.mkdtemp()\n")
    agent = Agent(object_client(), workspace=tree, approve=never_approve)
    before = snapshot(tree.parent)
    ran, output = run(agent, "pytest -q test_one.py")
    assert ran and "1 passed" in output, output
    assert snapshot(tree.parent) == before


def test_an_unasked_command_reaches_no_network_and_an_approved_one_does(sandbox, tree):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    port = server.getsockname()[1]
    accepted = []
    thread = threading.Thread(target=lambda: [accepted.append(server.accept()[0]) for _ in range(1)], daemon=True)
    thread.start()
    connect = f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), timeout=3); print(\"up\")'"
    try:
        ran, output = run(Gullible(object_client(), workspace=tree, approve=never_approve), connect)
        assert ran and "up" not in output and accepted == []
        agent = Agent(object_client(), workspace=tree, approve=always_approve)
        ran, output = run(agent, connect)
        thread.join(5)
        assert ran and "up" in output and len(accepted) == 1
    finally:
        for conn in accepted:
            conn.close()
        server.close()


def test_a_sandboxed_command_cannot_signal_a_process_outside_it(sandbox, tree):
    if landlock_abi() < 6:
        pytest.skip("Landlock ABI < 6 does not scope signals")
    outside = subprocess.Popen(["sleep", "30"])
    try:
        ran, output = run(Gullible(object_client(), workspace=tree, approve=never_approve), f"kill -9 {outside.pid}")
        assert ran and outside.poll() is None and "[exit code" in output
    finally:
        outside.kill()
        outside.wait()


# ---------------------------------------------------------------- the agents of s06 and s08: the transcript

@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("make", [TranscriptAgent, CompactAgent])
@pytest.mark.parametrize("approve", [never_approve, always_approve])
@pytest.mark.parametrize("wipe", ["find . -name '*.jsonl' -exec sed -i d {} +", "rm -rf .transcripts",
                                  "for f in .transcripts/*; do : > \"$f\"; done", "find . -type f -delete"])
def test_no_bash_command_of_s06_or_s08_wipes_the_transcript(sandbox, client, tmp_path, make, approve, wipe):
    ws = tmp_path / "ws"
    ws.mkdir()
    agent, messages = make(client, workspace=ws, approve=approve), []
    agent.ask("hello there", messages)
    agent.ask(f"Run `{wipe}`", messages)
    assert read_transcript(agent.transcript.path) == messages


# ---------------------------------------------------------------- each class, misjudged, through the s06 agent

PER_CLASS = {  # class: a command of it that writes, deletes or runs something in bash (here: misjudged on purpose)
    "brace expansion": "find . -type f -de{le,le}te",
    "a subscript bash evaluates": "z=(1); unset 'z[$(rm -f ../sentinel.txt)]'",
    "an operand bash evaluates": "[[ 'a[$(touch ../OUTSIDE)]' -eq 0 ]]",
    "a program that runs its argument": "env --default-signal touch made.txt",
    "env -S": "env -S 'touch ../OUTSIDE2'",
    "a long option, abbreviated": "sed --in-pl s/alpha/X/ notes.txt",
    "an option in a cluster": "sed -nEi s/alpha/X/ notes.txt",
    "an option after the operands": "git log -1 --stat --output ../out.txt",
    "a filter's output operand": "uniq notes.txt .git/HEAD",
    "git configuration that runs a program": "git -c alias.x='!rm -f notes.txt' x",
    "the transcript": "find . -name '*.jsonl' -exec sed -i d {} +",
    "the tool results": "rm -rf .tool_results",
    "metadata": "chmod -R 000 .git",
}


class GullibleTranscript(TranscriptAgent):
    """The s06 agent (s05's results folder, s06's transcript) with a classifier that calls everything read-only."""

    def classify(self, command):
        return Verdict(True, "only reads (misjudged on purpose)")


def record(agent) -> dict:
    return {p: p.read_bytes() for d in agent.record_dirs() if d.is_dir() for p in d.rglob("*") if p.is_file()}


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("command", PER_CLASS.values(), ids=PER_CLASS.keys())
def test_each_class_misjudged_changes_nothing_and_the_answer_says_it_failed(sandbox, tree, command):
    """Unasked, through the offline model: the workspace (.git too), the folder beside it and the agent's record
    (the transcript grows by this turn only; the tool results are kept) are as they were, and the answer
    does not claim success."""
    agent, messages = GullibleTranscript(offline_client(OfflineModel()), workspace=tree, approve=never_approve), []
    agent.ask("Run `seq 1 40000`", messages)  # a big output: s05 keeps it in its results folder
    kept, records = record(agent), {d.resolve() for d in agent.record_dirs()}
    assert any(d.name != agent.transcript_dir.name and files for d in agent.record_dirs()
               for files in [list(d.glob("*"))])
    before = {p: v for p, v in snapshot(tree.parent).items() if not records & {p.resolve(), *p.resolve().parents}}
    answer = agent.ask(f"Run `{command}`", messages)
    after = {p: v for p, v in snapshot(tree.parent).items() if not records & {p.resolve(), *p.resolve().parents}}
    assert after == before
    now = record(agent)
    assert all(now[p] == data or (p.suffix == ".jsonl" and now[p].startswith(data)) for p, data in kept.items())
    assert answer.startswith("That did not work.") and "Read-only file system" in answer, answer


# ---------------------------------------------------------------- where there is no sandbox

def test_without_a_sandbox_every_command_asks_and_says_why_once(tree):
    events = []
    asked = []
    agent = Agent(object_client(), workspace=tree, sandbox=False, approve=lambda c: asked.append(c) or False,
                  on_event=lambda kind, data: events.append(kind))
    first, second = run(agent, "ls"), run(agent, "cat notes.txt", "toolu_2")
    assert not first[0] and not second[0] and len(asked) == 2
    assert "there is no OS sandbox here, switched off by sandbox=False: every command asks" in first[1]
    assert "no OS sandbox: every command asks" in second[1] and "(sandbox=False)" not in second[1]
    assert events.count("sandbox") == 1


def test_a_sandbox_the_probe_did_not_find_means_every_command_asks(tree, monkeypatch):
    monkeypatch.setattr(s03_loop, "probe", lambda: Probe(False, "the kernel has no Landlock (ABI 0)"))
    agent = Agent(object_client(), workspace=tree, approve=never_approve)
    ran, reason = run(agent, "ls")
    assert not ran and "the kernel has no Landlock (ABI 0)" in reason
    with pytest.raises(RuntimeError, match="sandbox=True, but there is no OS sandbox here"):
        Agent(object_client(), workspace=tree, sandbox=True).sandboxed()


def test_without_a_sandbox_an_approved_command_really_writes(tree):
    """The other side of the sandbox tests: the same write, approved, with the sandbox off, lands."""
    agent = Agent(object_client(), workspace=tree, sandbox=False, approve=always_approve)
    ran, _ = run(agent, ": > ../sentinel.txt")
    assert ran and (tree.parent / "sentinel.txt").read_text() == ""


def test_the_probe_says_no_for_a_kernel_without_landlock(monkeypatch):
    from lessonkit.base import sandbox as module
    monkeypatch.setattr(module, "landlock_abi", lambda: 0)
    assert module.probe.__wrapped__() == Probe(False, "the kernel has no Landlock (ABI 0)")
    monkeypatch.setattr(module, "landlock_abi", lambda: MIN_ABI - 1)
    assert not module.probe.__wrapped__().ok


def test_the_probe_says_no_for_a_sandbox_that_lets_metadata_change(sandbox, monkeypatch):
    """Landlock alone does not stop chmod or touch -d: the probe tries them, so a sandbox without its
    read-only mounts is not counted as there."""
    from lessonkit.base import sandbox as module
    monkeypatch.setattr(module, "_read_only", lambda *args, **kwargs: None)
    found = module.probe.__wrapped__()
    assert found == Probe(False, "a confined command could still write: the sandbox is not enforced here")


def test_confine_refuses_an_abi_too_old():
    with pytest.raises(OSError, match="too old"):
        confine(Policy(), abi=MIN_ABI - 1)


def test_a_sandbox_that_cannot_be_set_up_runs_nothing(sandbox, tree, monkeypatch):
    def broken(policy):
        raise OSError("landlock_create_ruleset: Operation not permitted")
    monkeypatch.setattr(s03_loop, "confine", broken)
    agent = Gullible(object_client(), workspace=tree, approve=never_approve)
    ran, output = run(agent, "echo x > notes.txt")
    assert ran and "the sandbox could not be set up" in output and (tree / "notes.txt").read_text() == "alpha\nbeta\n"


def object_client():
    """A client the tests never call (the agent's path is driven call by call)."""
    return offline_client(OfflineModel(), max_retries=0)


def test_without_a_sandbox_the_terminal_question_about_a_read_only_command_says_why(tree, monkeypatch):
    prompts = []
    monkeypatch.setattr("builtins.input", lambda prompt: prompts.append(prompt) or "n")
    agent = Agent(object_client(), workspace=tree, sandbox=False)  # the default approve: ask on the terminal
    ran, _ = run(agent, "ls")
    assert not ran and prompts == ["The agent wants to run: ls (it only reads, by the rules, but no OS sandbox "
                                   "here makes sure)\nAllow? [y/N] "]
