"""s05 · Budget: a 100,000-character tool output must not eat the context.

Motto: the context holds what the model needs to read next, the disk holds the rest.

    ask ──> messages ──> prepare(messages) ──────────────> client.messages.create
               ^           └ budget: the newest turn's      (a copy whose last block carries
               │             results over 30,000 chars ->    cache_control: the history is
               │             <results_dir>/<id>.txt +        never written)
               │             "<persisted-output>" preview
               │                                                   │ tool_use
               │          bash: no 50,000 cut any more (the file   v
               │          keeps it all); read_file of a persisted  hooks + tools (s04)
               │          file: a bounded slice, never persisted again
               └──── one user message with every tool_result ──────┘

New in s05: `prepare(messages)`, the pipeline run on the live history before every
request (s06 and s07 add layers to it); its first layer, the budget (persist.py); the
prompt-cache breakpoint on what is sent (cache.py); bash without s01's 50,000-character
cut; read_file that pages through a persisted output.
Builds on s04: the hooks (PreCompact fires before the budget rewrites a turn).
Seed: the loop-and-hooks seed, its persist_large_output and the order of the layers
(s01 says what the seeds are).
Not modeled: a budget over the whole turn (each result is judged alone), deleting old
result files, images in results.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from lessonkit import tokens
from lessonkit.base.folders import read_only_in  # the record folders stay read-only (not the idea)
from s01_loop import ToolError, check_history
from s02_tools import (
    BASH,
    FILE_TOOLS,
    READ_FILE,
    READ_LIMIT,
    ToolRegistry,
    edit_file,
    read_file,
    resolve_in,
    write_file,
)
from s04_hooks import Agent as HooksAgent

from .cache import with_cache_breakpoint
from .persist import (
    BASH_CAP,
    PERSIST_THRESHOLD,
    PREVIEW_CHARS,
    check_sizes,
    over_budget,
    persisted_path,
    read_slice,
    tool_result_budget,
)

RESULTS_DIR = ".tool_results"   # under the workspace, unless the agent is given another folder
BASH_DESCRIPTION = ("Run a shell command in the workspace folder and return its output (stdout and "
                    "stderr). An output over {threshold:,} characters is saved to a file: you get its "
                    "path and a preview, and can read_file it with offset/limit.")


class Agent(HooksAgent):
    """The s04 agent with a tool-result budget and a prompt-cache breakpoint.

    Example: Agent(client, workspace=ws).ask("Run `seq 1 20000`")
      -> the model reads a 2,000-character preview naming .tool_results/<id>.txt, which has all 108,894
    """

    LAYERS = ("budget",)  # the pipeline run before each request, in order (later stages extend it)

    def __init__(self, client, *, results_dir=None, persist_threshold: int = PERSIST_THRESHOLD,
                 preview_chars: int = PREVIEW_CHARS, bash_cap: int | None = BASH_CAP,
                 cache_breakpoint: bool = True, registry: ToolRegistry | None = None, **options):
        check_sizes(persist_threshold, preview_chars)
        if persist_threshold < 1:
            raise ValueError(f"persist_threshold must be >= 1 character, got {persist_threshold}")
        if bash_cap is not None and bash_cap < persist_threshold:
            raise ValueError(f"bash_cap ({bash_cap}) must not be smaller than persist_threshold "
                             f"({persist_threshold}): the output would be cut before it could be saved")
        self.persist_threshold, self.preview_chars, self.bash_cap = persist_threshold, preview_chars, bash_cap
        if registry is None:  # s02's tools, with s05's bash and read_file handlers, and writes kept
            own = {"bash": {"handler": self.bash_tool,  # out of the agent's own record folders
                            "description": BASH_DESCRIPTION.format(threshold=persist_threshold)},
                   "read_file": {"handler": self.read_file_tool},
                   "write_file": {"handler": self.outside_record(write_file)},
                   "edit_file": {"handler": self.outside_record(edit_file)}}
            registry = ToolRegistry(replace(t, **own.get(t.name, {})) for t in (BASH, *FILE_TOOLS))
        super().__init__(client, registry=registry, **options)
        self.results_dir = self.own_folder("results_dir", results_dir if results_dir is not None else RESULTS_DIR)
        self.cache_breakpoint = cache_breakpoint
        self.rereads: set[str] = set()  # tool_use ids of reads of persisted files: never persisted again

    # ---- the agent's own record: folders inside the workspace the model may read, not write ------
    # (bash can write anywhere: s03 asks before a command that can write there). Not modeled: a record
    # folder swapped for a symlink after the agent is made (by an approved command).
    def own_folder(self, what: str, folder) -> Path:
        """A record folder, resolved like any path the model names; outside the workspace: ValueError.

        Example: a workspace whose `.tool_results` is a symlink to /tmp/x -> ValueError(
          "results_dir: path '.tool_results' is outside the workspace (through a symlink to /tmp/x); ...")
        """
        try:
            return resolve_in(self.workspace, str(folder))
        except ToolError as exc:
            raise ValueError(f"{what}: {exc}") from None

    def record_dirs(self) -> list[Path]:
        """The folders of the agent's own record: s05's results (s06 adds its transcripts)."""
        return [self.results_dir]

    def outside_record(self, handler):
        """A file tool handler that refuses paths inside the record folders: the model reads there."""
        return read_only_in(handler, self.record_dirs, resolve_in, self.refuse_record)  # lessonkit/base/folders.py

    def refuse_record(self, path: str, folder: Path) -> None:
        """The model's write into a record folder, refused in words it can act on."""
        raise ToolError(f"{path!r} is in {self.display_path(folder)}, the agent's own record: "
                        "the file tools read there but do not write")

    def display_path(self, path) -> str:
        """A path as previews, placeholders and summaries name it: relative to the workspace when inside it."""
        path = Path(path)
        return path.relative_to(self.workspace).as_posix() if self.workspace in path.parents else str(path)

    # ---- the tools s05 changes ------------------------------------------------------
    def bash_tool(self, workspace: Path, command: str) -> str:
        """s01's bash without its 50,000-character cut: the budget decides what the model sees."""
        return super().bash_tool(workspace, command, cap=self.bash_cap)  # in s03's sandbox

    def persisted_file(self, path) -> Path | None:
        """The persisted-output file `path` names (absolute, or relative to the workspace), or None."""
        try:  # the same check as every path the model names: never outside the workspace
            real = resolve_in(self.workspace, path)
        except ToolError:
            return None  # s02's read_file refuses it, saying why
        inside = real.parent == self.results_dir
        return real if inside and real.is_file() else None

    def read_file_tool(self, workspace: Path, path: str, offset: int = 1, limit: int = READ_LIMIT) -> str:
        """s02's read_file; a persisted output is paged instead, in slices under the threshold."""
        real = self.persisted_file(path)
        if real is None:
            return read_file(workspace, path, offset, limit)
        return read_slice(real, offset, limit, self.persist_threshold)

    def run_tool(self, block: dict) -> dict:
        """Remember reads of persisted files, so the budget never persists them again."""
        if block.get("name") == READ_FILE.name and self.persisted_file((block.get("input") or {}).get("path")):
            self.rereads.add(block["id"])  # persisting its result again would send the model round in a loop
        return super().run_tool(block)

    # ---- before every request -----------------------------------------------------------
    def compacted(self, layer: str, messages: list, tokens_before: int, messages_before: int, note: str) -> None:
        """Report a compaction layer's work as a "compact" event."""
        self.emit("compact", layer=layer, tokens_before=tokens_before, tokens_after=tokens.count_messages(messages),
                  messages_before=messages_before, messages_after=len(messages), note=note)

    def budget(self, messages: list) -> None:
        """Layer 0 (the loop-and-hooks seed's tool_result_budget): persist the newest turn's big results."""
        big = over_budget(messages, self.persist_threshold, self.rereads)  # only the turn the model reads next
        if not big:
            return
        self.notify_hooks("PreCompact", "budget", messages)  # a hook sees the turn before it is rewritten
        before = tokens.count_messages(messages)
        # In place: each big result becomes a file under results_dir, and a preview naming it in the history.
        tool_result_budget(messages, directory=self.results_dir, threshold=self.persist_threshold,
                           preview_chars=self.preview_chars, keep=self.rereads, relative_to=self.workspace)
        paths = [persisted_path(b["content"]) for b in big]
        self.compacted("budget", messages, before, len(messages), "persisted " + ", ".join(map(str, paths)))

    def prepare(self, messages: list) -> None:
        """The pipeline on the live history before each request: each of LAYERS, in order."""
        for layer in self.LAYERS:  # each layer rewrites the live history in place, cheapest first
            getattr(self, layer)(messages)

    def call_model(self, messages: list):
        """Prepare the history, then send a copy that carries the cache breakpoint."""
        self.prepare(messages)  # 1. the live history, rewritten in place by each layer
        # 2. Send a copy whose last block carries cache_control: the next request reads this prefix from the cache.
        return super().call_model(with_cache_breakpoint(messages) if self.cache_breakpoint else messages)


def agent_loop(messages: list, *, client, **options) -> str:
    """The s05 loop as one function: run `messages` (ending with a user turn) to the end."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    return Agent(client, **options).loop(messages)
