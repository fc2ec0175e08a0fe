"""lessonkit.exercises: every exercise tells good from bad.

For every exercise of every stage: the reference passes, the starter fails at least half
the cases, and each plausible wrong answer of its table is rejected with a message about
that mistake; the hint ladder climbs to the solution. (The arena's exercise is checked
in test_arena.py, on its session.)
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import lessonkit.exercises as exercises_pkg
from lessonkit.exercises import MAX_HINTS, Exercise, Hint
from lessonkit.show.source import Source


def all_exercises() -> dict[str, Exercise]:
    """Every Exercise object in lessonkit/exercises/*.py, by 'module.name'."""
    found = {}
    for info in pkgutil.iter_modules(exercises_pkg.__path__):
        module = importlib.import_module(f"lessonkit.exercises.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, Exercise):
                found[f"{info.name}.{name}"] = value
    return found


EXERCISES = all_exercises()
MISTAKES = [(key, m) for key, ex in EXERCISES.items() for m in ex.mistakes]


def test_every_stage_has_an_exercise_and_s05_to_s08_have_two():
    per_stage: dict = {}
    for key in EXERCISES:
        per_stage.setdefault(key.split(".")[0], []).append(key)
    assert sorted(per_stage) == [f"s0{n}_{slug}" for n, slug in
                                 enumerate(["loop", "tools", "permissions", "hooks", "budget", "compact",
                                            "reactive", "compact4"], 1)] + ["s09_subagents", "s10_memory"]
    for stage in ("s05_budget", "s06_compact", "s07_reactive", "s08_compact4"):
        assert len(per_stage[stage]) >= 2, per_stage[stage]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("key", EXERCISES)
def test_the_reference_passes(key):
    ex = EXERCISES[key]
    result = ex.check(ex.reference)
    assert result, result.report()


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("key", EXERCISES)
def test_the_starter_fails_at_least_half_the_cases(key):
    ex = EXERCISES[key]
    result = ex.check(ex.starter_function())
    total = len(result.passed) + len(result.failures)
    assert len(result.failures) * 2 >= total, result.report()


@pytest.mark.parametrize("key", EXERCISES)
def test_each_exercise_has_five_distinct_mistakes_and_a_ladder_of_hints(key):
    ex = EXERCISES[key]
    assert len(ex.mistakes) >= 5
    says = [m.says for m in ex.mistakes]
    assert len(set(says)) == len(says), "two mistakes expect the same message"
    assert len({m.fn for m in ex.mistakes}) == len(ex.mistakes)
    assert 1 <= len(ex.hints) <= MAX_HINTS and len(set(ex.hints)) == len(ex.hints)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("key, mistake", MISTAKES, ids=[f"{k}:{m.slip}" for k, m in MISTAKES])
def test_each_wrong_answer_is_rejected_with_its_own_message(key, mistake):
    result = EXERCISES[key].check(mistake.fn)
    assert not result, f"{mistake.slip!r} passes"
    assert mistake.says in result.report(), result.report()
    assert_said_once(result.report())


def assert_said_once(report: str) -> None:
    """No explanation said twice (cases failing the same way share one line) and no doubled braces."""
    from lessonkit.exercises.checks import same_way

    lines = [line.split(": ", 1)[-1] for line in report.splitlines()[1:]]
    keys = [same_way(line) for line in lines]
    assert len(set(keys)) == len(keys), f"a line repeated:\n{report}"
    assert "{{" not in report and "}}" not in report, report


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("key", EXERCISES)
def test_the_starters_report_says_each_thing_once(key):
    assert_said_once(EXERCISES[key].check(EXERCISES[key].starter_function()).report())


def test_cases_failing_the_same_way_share_one_line_naming_the_first():
    """The walkthrough's repro: list(m) as with_cache_breakpoint printed one bare line four times and
    a literal [{{'type': ...}}]."""
    from lessonkit.exercises.s05_budget import cache_exercise

    report = cache_exercise.check(lambda m: list(m)).report()
    assert report.splitlines()[2].startswith("  ✗ a turn of tool results (and 3 more cases like it): no block "
                                             "carries cache_control: expected it on block 0 of messages[4]"), report
    assert len(report.splitlines()) == 3 and "[{'type': 'text'" in report
    assert_said_once(report)


def test_a_long_value_is_shown_where_it_differs():
    from lessonkit.exercises.checks import Case, check

    got, want = [{"text": "x" * 300, "n": 1}], [{"text": "x" * 300, "n": 2}]
    report = check(lambda: got, [Case("long", (), want)], echo=False).report()
    assert "differs at [0]['n']: 1, expected 2" in report, report


def test_s08_estimate_names_the_rule_of_each_part_it_got_wrong():
    from lessonkit.exercises.s08_compact4 import estimate

    failures = dict(estimate.check(lambda m: 0).failures)
    assert "12 too few: a plain-string content counts its own characters" in failures["a plain-string prompt"]
    assert "a tool_use counts its name and its input as compact JSON" in failures["a tool call with non-ASCII input"]
    assert len(set(failures.values())) == len(failures)



def test_s08_estimate_names_each_held_out_slip_by_what_the_answer_does():
    """Held out: texts joined with a separator, an image counted, and round() passed or were named as another
    slip (round() gives 23 for the call's 68 characters, as json.dumps's spaces do: it heard "spaces"). The
    answer's own number on small probes tells two slips with one number apart."""
    import json
    import math

    from lessonkit.exercises.s08_compact4 import estimate

    def answer(divide=lambda n: n // 3, join="", size=len, others=lambda b: 0, spaces=(",", ":")):
        def estimate_one(message):
            content = message["content"]
            if isinstance(content, str):
                return divide(size(content))
            n = 0
            for b in content:
                if b["type"] == "text":
                    n += size(b["text"])
                elif b["type"] == "tool_use":
                    n += size(b["name"]) + size(json.dumps(b["input"], ensure_ascii=False, separators=spaces))
                elif b["type"] == "tool_result":
                    c = b["content"]
                    n += len(b["tool_use_id"]) + size(c if isinstance(c, str) else join.join(x["text"] for x in c))
                else:
                    n += others(b)
            return divide(n)
        return estimate_one

    assert estimate.check(answer())
    for wrong, says in [
        (answer(join="\n"), "the blocks' texts were joined with a separator"),
        (answer(divide=lambda n: round(n / 3)), "returned 23, expected 22 for a message of ['tool_use']: the "
                                                "characters were divided rounding up (or to the nearest)"),
        (answer(divide=lambda n: math.ceil(n / 3)), "divided rounding up"),
        (answer(others=lambda b: len(str(b))), "an image (or any block that is not text, tool_use or tool_result)"),
        (answer(size=lambda t: len(t.encode())), "measured in UTF-8 bytes"),
        (answer(spaces=None), "returned 23, expected 22 for a message of ['tool_use']: the input was counted with "
                              "json.dumps's spaces"),
    ]:
        report = str(estimate.check(wrong))
        assert report.startswith("✗") and says in report, report

@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_s06_every_failure_of_one_answer_points_the_way_that_passes():
    """int(window * 0.55) heard "raise" on 4,000 and "lower" on 3,500; 0.7 heard no direction."""
    from lessonkit.exercises.s06_compact import PASSING, THRESHOLD_HINTS, thresholds

    low = thresholds.check(lambda window: int(window * 0.55))
    assert low.failures and all(r.endswith("raise the threshold") for _, r in low.failures), low.report()
    high = thresholds.check(lambda window: int(window * 0.7))
    assert high.failures and all(r.endswith("lower the threshold") for _, r in high.failures), high.report()
    assert f"only shares from {PASSING[0]} to {PASSING[1]} pass" in THRESHOLD_HINTS[1]


@pytest.mark.slow
def test_s06_the_passing_band_the_hint_states_is_measured():
    from lessonkit.exercises.s06_compact import PASSING, thresholds

    low, high = PASSING
    for share in (low, high):
        assert thresholds.check(lambda window, s=share: int(window * s)), share
    for share, way in ((round(low - 0.01, 2), "raise"), (round(high + 0.01, 2), "lower")):
        result = thresholds.check(lambda window, s=share: int(window * s))
        assert result.failures and all(r.endswith(f"{way} the threshold") for _, r in result.failures), share


def test_the_hint_ladder_climbs_then_shows_the_solution():
    ex = EXERCISES["s04_hooks.exercise"]
    fresh = Exercise(ex.name, ex.task, ex.starter, ex.reference, ex.cases, adapt=ex.adapt, hints=ex.hints)
    rungs = [fresh.hint() for _ in range(len(ex.hints))]
    assert [type(h) for h in rungs] == [Hint] * len(ex.hints)
    assert [repr(h) for h in rungs] == [f"Hint {i}/{len(ex.hints)}: {text}" for i, text in
                                        enumerate(ex.hints, 1)]
    solution = fresh.hint()
    assert isinstance(solution, Source) and "def trigger_hooks" in str(solution)
    assert str(fresh.hint(2)) == repr(rungs[1])      # any rung on request; the ladder stays where it was
    assert isinstance(fresh.hint(), Source)
    assert ex._asked == [0]                          # each Exercise keeps its own place on the ladder


def test_too_many_hints_or_a_rung_below_one_is_an_error():
    ex = EXERCISES["s01_loop.exercise"]
    with pytest.raises(ValueError, match="at most 3 hints before the solution, got 4"):
        Exercise(ex.name, ex.task, ex.starter, ex.reference, ex.cases, hints=("a", "b", "c", "d"))
    with pytest.raises(ValueError, match="hint rungs start at 1, got 0"):
        ex.hint(0)


def test_s05_hints_come_from_the_failure_not_the_case():
    """A student who made the folder but cut the preview mid-line hears about the preview only."""
    from lessonkit.exercises.s05_budget import exercise, next_newline

    failures = dict(exercise.check(next_newline).failures)
    folder = failures["the folder does not exist yet"]
    assert "more than preview_chars" in folder
    assert "create" not in folder and "parents" not in folder


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_s08_the_band_has_edges_a_wrong_setting_falls_off():
    """A band, not a needle (0.75/0.45 passes as well as the seed's 0.8/0.5), but still a band: a
    trigger too late (0.85: a request over the window), a keep too small (0.3: the recent reads
    lost) or too large (0.6 of a 0.7 trigger: no room for the next answer) fails."""
    from lessonkit.exercises.s08_compact4 import exercise, ratios

    inside = [(0.8, 0.5), (0.6, 0.45)]
    outside = [(0.85, 0.5), (0.8, 0.3), (0.7, 0.6), (0.95, 0.75)]
    assert [bool(exercise.check(ratios(t, k))) for t, k in inside + outside] == [True] * 2 + [False] * 4


# ---------------------------------------------------------------- the explanation comes from the failure

def _slip(key: str, name: str):
    """A wrong answer of an exercise's own table, by its function's name."""
    return next(m.fn for m in EXERCISES[key].mistakes if m.fn.__name__ == name)


# (exercise, case, (wrong answer, words about ITS mistake), (another wrong answer failing the same case, ...))
DISCRIMINATION = [
    ("s01_loop.exercise", "cut off by max_tokens before any text",
     ("keeps_cut_calls", "no tool will answer it"), ("may_leave_nothing", "nothing is left")),
    ("s02_tools.exercise", ".. that stays inside",
     ("returns_the_spelling", "Path.resolve() collapses .."), ("forgets_the_workspace", "it is inside the workspace")),
    ("s03_permissions.exercise", "`rm -fr /` (the disk, spelled another way)",
     ("substrings", "not one spelling of it"), ("asks_first", "the deny list comes first")),
    ("s03_permissions.exercise", "`grep -n \"sudo rm\" notes.txt` (sudo in quotes)",
     ("deny_words", "sudo is only text inside an argument"), ("asks_for_everything", "it asks even about `ls`")),
    ("s03_permissions.exercise", "`sed -i 's/a/b/' notes.txt` (writes, with no destructive word)",
     ("destructive_words", "cannot be complete"), ("verdict_is_truthy", "a Verdict itself is always true")),
    ("s03_permissions.exercise", "`echo perform` (a word that contains rm)",
     ("substrings", "only letters inside 'perform'"), ("asks_for_everything", "it asks even about `ls`")),
    ("s04_hooks.exercise", "an empty reason still decides",
     ("truthy", "test `is not None`"), ("asks_everyone", "log was called after blank had decided")),
    ("s04_hooks.exercise", "a hook that raises",
     ("seeds_trigger", "any other exception crashes the loop"), ("names_the_event", "not the hook that failed")),
    ("s06_compact.exercise", "keep_recent=0",
     ("minus_zero", "results[:-0]"), ("returns_a_copy", "change `messages` in place")),
    ("s06_compact.thresholds", "a 4,000-token window",
     ("seeds_threshold", "before the estimate reached the threshold"),
     ("nearly_all", "after the summary call had failed")),
    ("s07_reactive.exercise", "k past the end",
     ("seeds_slice", "clamp k first"), ("lists_only", "messages[7] does not exist")),
]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("key, case, one, other", DISCRIMINATION, ids=[f"{k}:{c}" for k, c, _, _ in DISCRIMINATION])
def test_two_mistakes_failing_the_same_case_hear_about_their_own(key, case, one, other):
    """The outside tester's complaint, generalised: a student who got one thing right and another
    wrong must not be told about the thing done right. Two wrong answers fail the same case; each
    report explains its own mistake, and never the other's."""
    reasons = {}
    for name, _ in (one, other):
        failures = dict(EXERCISES[key].check(_slip(key, name)).failures)
        assert case in failures, f"{name} passes {case!r}"
        reasons[name] = failures[case]
    (a, says_a), (b, says_b) = one, other
    assert says_a in reasons[a] and says_b not in reasons[a], reasons[a]
    assert says_b in reasons[b] and says_a not in reasons[b], reasons[b]


def test_s01_a_json_explanation_only_when_the_answer_is_not_json():
    """'the history is data: it must survive json.dumps' is said to SDK blocks, not to extra keys."""
    from lessonkit.exercises.s01_loop import exercise, seeds_line, whole_response

    sdk = dict(exercise.check(seeds_line).failures)["a text answer (end_turn)"]
    extra = dict(exercise.check(whole_response).failures)["a text answer (end_turn)"]
    assert "json.dumps" in sdk and "to_dict" in sdk
    assert "extra keys" in extra and "json.dumps" not in extra


# ---------------------------------------------------------------- the last rung is a solution that runs

@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("key", EXERCISES)
def test_the_last_rung_is_a_complete_solution_that_passes(key):
    """Rung 4 of every ladder, run as shown in a fresh namespace (as pasting it into the exercise
    cell does), defines the function the student writes, and the check passes it."""
    ex = EXERCISES[key]
    shown = ex.hint(len(ex.hints) + 1).text
    namespace: dict = {}
    exec(compile(shown, f"<rung 4 of {key}>", "exec"), namespace)  # noqa: S102
    assert callable(namespace.get(ex.name)), f"{key}: the last rung defines no {ex.name}:\n{shown}"
    result = ex.check(namespace[ex.name])
    assert result, f"{key}: the last rung fails its check:\n{shown}\n{result.report()}"


@pytest.mark.parametrize("key, shows, hides", [
    ("s04_hooks.exercise", ["for fn in registry[event]", "raise HookError("], ["registry.trigger("]),
    ("s06_compact.exercise", ["def micro_plan(", "def micro_compact("], []),
    ("s08_compact4.exercise", ["def compaction_config(", "compact_trigger_ratio=0.8"], ["class CompactionConfig"]),
])
def test_the_last_rung_shows_the_algorithm_not_a_delegation(key, shows, hides):
    """The walkthrough's three ladders: s04 ended in `return registry.trigger(...)`, s06's in a call to a
    micro_plan it did not show, s08's in the whole CompactionConfig class."""
    shown = EXERCISES[key].hint(len(EXERCISES[key].hints) + 1).text
    assert all(s in shown for s in shows) and not any(h in shown for h in hides), shown


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_a_remembered_s06_run_is_the_run_itself(monkeypatch):
    """The threshold check remembers runs (the offline model is deterministic): a remembered run equals
    a fresh one; other backends and thresholds that are not plain numbers are never remembered."""
    from lessonkit.exercises.s06_compact import threshold_runs as runs

    monkeypatch.setattr(runs, "_RUNS", {})
    with runs.scratch() as root:
        first = runs.run_agent(lambda w: int(w * 0.65), root)(4_000)
        assert len(runs._RUNS) == 1
        again = runs.run_agent(lambda w: int(w * 0.65), root)(4_000)
        runs._RUNS.clear()
        fresh = runs.run_agent(lambda w: int(w * 0.65), root)(4_000)
        assert vars(first) == vars(again) == vars(fresh) and first.summaries >= 1
        again.reads.clear()
    assert runs.run_agent(lambda w: int(w * 0.65), root)(4_000).reads == first.reads  # a copy was handed out
    assert runs._memo_key(4_000, True) is None and runs._memo_key(4_000, "2600") is None
    monkeypatch.setenv("LESSONS_BACKEND", "anthropic")
    assert runs._memo_key(4_000, 2_600) is None


def test_a_remembered_s08_run_tells_its_problem_in_the_students_language(monkeypatch):
    from lessonkit.exercises.s08_compact4 import runs
    from s08_compact4 import CompactionConfig

    monkeypatch.setattr(runs, "_RUNS", {})
    seed = lambda context_window: CompactionConfig(context_window=context_window)  # noqa: E731
    with runs.sandbox() as env:  # a 1,000-token window: the run stops (reactive compaction gives up)
        monkeypatch.setenv("LESSONS_LANG", "en")
        en = runs.run_with(seed, env)(12, 40, 1_000)
        monkeypatch.setenv("LESSONS_LANG", "zh")
        zh = runs.run_with(seed, env)(12, 40, 1_000)
    assert len(runs._RUNS) == 1 and en.problem and zh.problem and en.problem != zh.problem
    assert en.problem.startswith("the run stopped: ReactiveCompactError: reactive compaction gave up")
    assert zh.problem.startswith("运行中止了：ReactiveCompactError：reactive compaction gave up")  # the same error

    class Mine(CompactionConfig):
        pass
    assert runs._memo_key(12, 40, 3_000, Mine(context_window=3_000)) is None


def test_what_a_lesson_imports_from_an_exercise_is_the_function_not_a_module_of_that_name():
    """`from lessonkit.exercises.s02_tools import find_text as reference` gave the module find_text.py:
    a submodule's import binds its name on the package, over the function the lesson meant."""
    import ast
    import json

    found, modules = 0, []
    for path in sorted((Path(__file__).resolve().parent.parent / "lessons").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in (c for c in cells if c["cell_type"] == "code"):
            source = "".join(cell["source"])
            for node in ast.walk(ast.parse("\n".join(ln for ln in source.splitlines() if not ln.startswith(("%", "!"))))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lessonkit.exercises"):
                    package = importlib.import_module(node.module)
                    for alias in node.names:
                        found += 1
                        if isinstance(getattr(package, alias.name), type(package)):
                            modules.append(f"{path.name}: {node.module}.{alias.name}")
    assert found > 10 and modules == []


def test_no_exercise_s_solution_rebinds_another_exercise_of_its_lesson():
    """s02's find_text solution imported `resolve_in` from the stage: pasted below the student's own
    resolve_in, it rebound the name, and verify, running the whole notebook, graded the first exercise
    'uses the reference'."""
    import ast

    from lessonkit.workshop.gradeplan import plan

    rebinds = []
    for lesson, lesson_plan in plan().items():
        names = [c["name"] for c in lesson_plan["checks"]]
        for check in lesson_plan["checks"]:
            scope: dict = {}
            exec(compile(check["imports"], "<check>", "exec"), scope)  # noqa: S102 - the kit's own cell
            exercise = scope[check["call"].split(".check(")[0].strip()]
            if not hasattr(exercise, "hints"):
                continue
            last = exercise.hint(len(exercise.hints) + 1)
            tree = ast.parse(str(getattr(last, "text", last)))
            bound = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                     for a in n.names} | {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
            rebinds += [f"{lesson}: {check['name']}'s solution binds {other}" for other in names
                        if other != check["name"] and other in bound]
    assert rebinds == []
