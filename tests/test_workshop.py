"""The workshop kit: the tagging rule, student notebooks, reset, progress (lessonkit/workshop/)."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

import nbformat
import pytest

from lessonkit.workshop.__main__ import main, tag_files
from lessonkit.workshop.student import HEADER_ID, KERNELSPEC, reset, student_version, write_courses, write_students
from lessonkit.workshop.tags import CHECK, EXERCISE, SOLUTION, classify, known_starters, source, tag_cells, tags

ROOT = Path(__file__).resolve().parent.parent
LESSONS = ROOT / "lessons"
NOTEBOOKS = sorted(LESSONS.glob("*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]
STARTERS = known_starters()


def cells_of(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def code(text, *tag_list):
    return {"cell_type": "code", "id": f"c{abs(hash(text)) % 10**8}", "metadata": {"tags": list(tag_list)} if tag_list
            else {}, "source": text, "outputs": [], "execution_count": None}


def md(text):
    return {"cell_type": "markdown", "id": f"m{abs(hash(text)) % 10**8}", "metadata": {}, "source": text}


# --- the tagging rule -----------------------------------------------------------------------------

@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_the_committed_lessons_are_tagged_by_the_rule(path):
    """Re-running `python -m lessonkit.workshop tag` after a merge changes nothing here."""
    cells = cells_of(path)
    roles = classify(cells, STARTERS)
    assert [[t for t in tags(c) if t in (EXERCISE, CHECK, SOLUTION)] for c in cells] == \
           [[r] if r else [] for r in roles], "re-run: python -m lessonkit.workshop tag lessons/*.ipynb"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_exercise_check_and_reference_cell_carries_its_tag(path):
    """Stated without the classifier: starters are `exercise`, checks of the student's function
    `check`, and anything showing or re-checking the reference `solution`."""
    cells = cells_of(path)
    student = set()
    for cell in cells:
        if cell["cell_type"] == "code" and source(cell).strip() in STARTERS:
            assert EXERCISE in tags(cell), source(cell)[:80]
        if EXERCISE in tags(cell):
            student |= set(re.findall(r"^def (\w+)", source(cell), re.M))
    assert student, "every lesson has an exercise"
    for cell in cells:
        text = source(cell)
        checked = re.findall(r"\.check\(\s*([\w.]+)", text) if cell["cell_type"] == "code" else []
        if "show_reference(" in text or any(n not in student for n in checked):
            assert SOLUTION in tags(cell), text[:80]
        elif checked:
            assert CHECK in tags(cell), text[:80]
        if cell["cell_type"] == "markdown" and "reference solution" in text.lower():
            assert SOLUTION in tags(cell), text[:80]
    assert any(CHECK in tags(c) for c in cells) and any(SOLUTION in tags(c) for c in cells)


def test_the_rule_keeps_hints_tags_a_new_exercise_by_its_starter_and_any_show_reference():
    starter = next(iter(sorted(STARTERS)))
    name = re.search(r"^def (\w+)", starter, re.M).group(1)
    cells = [md("## Build it"), code(starter), code(f"exercise.check({name})"),
             md("A hint: think about the order."), code("exercise.hint(2)"),
             md("The reference solution is the module's own:"), code("show(mod.fn)"), code("exercise.check(mod.fn)"),
             md("## Next"), code("show(mod.other)"), code("exercise.show_reference()"), code("other.check(x)")]
    assert classify(cells, STARTERS) == [None, EXERCISE, CHECK, None, None, SOLUTION, SOLUTION, SOLUTION,
                                         None, None, SOLUTION, None]


def test_tagging_changes_only_tags_and_drops_stale_ones():
    cells = [code("def f(x):\n    return x", EXERCISE), code("exercise.check(f)", "solution", "keep-me"),
             code("print(1)", CHECK)]
    before = copy.deepcopy(cells)
    assert tag_cells(cells) == 2
    assert [tags(c) for c in cells] == [[EXERCISE], ["keep-me", CHECK], []]
    assert [(c["id"], c["source"]) for c in cells] == [(c["id"], c["source"]) for c in before]
    assert tag_cells(cells) == 0


def test_the_tag_command_pins_the_kernelspec_and_rewrites_nothing_else(tmp_path):
    path = tmp_path / "s01_loop.ipynb"
    nb = json.loads((LESSONS / "s01_loop.ipynb").read_text(encoding="utf-8"))
    nb["metadata"]["kernelspec"]["display_name"] = "Python 3"
    for cell in nb["cells"]:
        cell["metadata"].pop("tags", None)
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert "kernelspec pinned" in tag_files([path])[0]
    again = json.loads(path.read_text(encoding="utf-8"))
    assert again["metadata"]["kernelspec"] == KERNELSPEC
    assert again["cells"] == cells_of(LESSONS / "s01_loop.ipynb")
    mtime = path.stat().st_mtime_ns
    assert tag_files([path]) == [f"{path}: 0 cell(s) retagged"] and path.stat().st_mtime_ns == mtime


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_lesson_pins_the_kernelspec_jupyterlab_writes(path):
    """JupyterLab writes the running kernel's spec on save; pinned, a save leaves git clean."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    assert {"display_name": spec.display_name, "language": spec.language, "name": "python3"} == KERNELSPEC
    assert json.loads(path.read_text(encoding="utf-8"))["metadata"]["kernelspec"] == KERNELSPEC


# --- student notebooks ----------------------------------------------------------------------------

@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_a_student_notebook_has_no_solution_and_keeps_the_rest(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    out = student_version(nb, path.stem)
    assert out["cells"][0]["id"] == HEADER_ID and f"reset {path.stem.split('_')[0]}" in source(out["cells"][0])
    kept = [c for c in nb["cells"] if SOLUTION not in tags(c)]
    assert [c["id"] for c in out["cells"][1:]] == [c["id"] for c in kept]
    assert len(kept) < len(nb["cells"])
    for cell in out["cells"][1:]:
        text = source(cell)
        assert "show_reference(" not in text and "reference solution" not in text.lower()
        if EXERCISE in tags(cell):
            assert text.strip() in STARTERS and cell["outputs"] == []
        if CHECK in tags(cell):
            assert cell["outputs"] == [] and cell["execution_count"] is None
    demo = [c for c in out["cells"] if c["cell_type"] == "code" and not set(tags(c)) & {EXERCISE, CHECK}]
    assert any(c["outputs"] for c in demo), "the demo cells keep their outputs"
    assert out["metadata"].get("widgets") == nb["metadata"].get("widgets")
    assert out["metadata"]["kernelspec"] == KERNELSPEC
    nbformat.validate(nbformat.from_dict(out))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
@pytest.mark.slow
def test_every_check_in_a_student_notebook_fails_on_the_starter_saying_why_and_records_it(path, tmp_path):
    """Run the student notebook (no solutions) in its own kernel, in a work/ folder: every check cell
    prints the starter's own failure, the first line the committed lesson shows for that check, and
    leaves a record of it for the room view (work/.progress/<lesson>.jsonl)."""
    from lessonkit.exercises import records
    from lessonkit.kernels import run_notebook

    work = tmp_path / "work"
    write_students(LESSONS, work)
    nb = nbformat.read(work / path.name, as_version=4)
    env = {k: v for k, v in os.environ.items() if k != "LESSONS_PROGRESS"}
    run_notebook(nb, timeout=180, kernel_name="python3", record_timing=False,
                 resources={"metadata": {"path": str(work)}}, env=env)

    def first_lines(cells):
        out = {}
        for cell in cells:
            if CHECK in tags(cell):
                text = "".join(o.get("text", "") or "".join(o.get("data", {}).get("text/plain", ""))
                               for o in cell.get("outputs", []))
                out[re.search(r"\.check\(\s*(\w+)", source(cell)).group(1)] = text.strip().splitlines()[0]
        return out

    expected = first_lines(cells_of(path))
    assert expected and all(line.startswith("✗") for line in expected.values())
    assert first_lines(nb.cells) == expected
    mine = records.read(work / records.FOLDER / f"{path.stem}.jsonl")
    assert {r["exercise"]: f"{r['passed']}/{r['total']}" for r in mine} == \
        {name: re.search(r"(\d+/\d+) ", line).group(1) for name, line in expected.items()}


def test_every_language_gets_its_copies_with_a_header_in_that_language(tmp_path):
    work = tmp_path / "work"
    lines = write_courses(LESSONS, work)
    english, chinese = sorted(p.name for p in work.glob("*.ipynb")), sorted(p.name for p in (work / "zh").glob("*.ipynb"))
    assert english == chinese == sorted(p.name for p in LESSONS.glob("*.ipynb")) and len(lines) == 2 * len(english)
    head = json.loads((work / "zh" / "s06_compact.ipynb").read_text(encoding="utf-8"))["cells"][0]
    text = "".join(head["source"])
    assert "lessons/zh/s06_compact.ipynb" in text and "work/zh/.backup/" in text and "副本" in text
    assert "Your copy" in "".join(json.loads((work / "s06_compact.ipynb").read_text(encoding="utf-8"))["cells"][0]["source"])
    (work / "zh" / "s01_loop.ipynb").write_text("my work", encoding="utf-8")
    again = write_courses(LESSONS, work)
    assert (work / "zh" / "s01_loop.ipynb").read_text(encoding="utf-8") == "my work"
    assert sum(": kept" in line for line in again) == 2 * len(english)


def test_copies_from_a_folder_with_no_lessons_are_a_one_line_error(tmp_path, capsys):
    for where in (tmp_path / "missing", tmp_path):
        with pytest.raises(ValueError, match=r"^no lesson notebooks in .*: point --lessons at the kit's lessons/ folder$"):
            write_courses(where, tmp_path / "work")
    assert main(["student", "--lessons", str(tmp_path / "missing"), "--out", str(tmp_path / "work")]) != 0
    assert capsys.readouterr().err.strip().startswith("error: no lesson notebooks in ")
    assert not (tmp_path / "work").exists()


def test_student_keeps_a_students_work_and_never_touches_the_lessons(tmp_path):
    digest = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in NOTEBOOKS}
    lines = write_students(LESSONS, tmp_path)
    assert all(line.endswith("written") for line in lines) and len(lines) == len(NOTEBOOKS)
    mine = tmp_path / "s01_loop.ipynb"
    mine.write_text(mine.read_text(encoding="utf-8").replace("the seed's line", "my line"), encoding="utf-8")
    again = write_students(LESSONS, tmp_path)
    assert f"{mine}: kept (your work); start again with: python -m lessonkit.workshop reset s01" in again
    assert "my line" in mine.read_text(encoding="utf-8")
    assert digest == {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in NOTEBOOKS}


def test_reset_restores_one_notebook_and_keeps_the_students_copy(tmp_path):
    write_students(LESSONS, tmp_path)
    mine = tmp_path / "s06_compact.ipynb"
    fresh = mine.read_text(encoding="utf-8")
    mine.write_text(fresh.replace("return 50_000", "return window // 2"), encoding="utf-8")
    line = reset("s06", LESSONS, tmp_path)
    assert line.startswith(f"{mine}: reset; your copy is in {tmp_path / '.backup'}")
    assert mine.read_text(encoding="utf-8") == fresh
    [backup] = (tmp_path / ".backup").glob("s06_compact.*.ipynb")
    assert "return window // 2" in backup.read_text(encoding="utf-8")
    reset("s06_compact.ipynb", LESSONS, tmp_path)  # a second reset keeps both copies
    assert len(list((tmp_path / ".backup").glob("s06_compact.*.ipynb"))) == 2
    assert reset("s02", LESSONS, tmp_path / "empty") == f"{tmp_path / 'empty' / 's02_tools.ipynb'}: reset"


def test_reset_of_an_unknown_lesson_is_a_one_line_error(tmp_path, capsys):
    assert main(["reset", "s99", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: 's99' is not a lesson in ") and "s01_loop" in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_work_is_outside_what_make_test_runs_and_ignored_by_git():
    testpaths = re.search(r"^testpaths = \[(.*)\]", (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    assert testpaths and "work" not in re.findall(r'"([^"]+)"', testpaths.group(1))
    if (ROOT / ".git").exists():
        ignored = subprocess.run(["git", "check-ignore", "-q", "work/s01_loop.ipynb"], cwd=ROOT)
        assert ignored.returncode == 0, "work/ must be git-ignored"


# --- Binder and the container, validated without a container runtime ------------------------------

def requires_python():
    return re.search(r'^requires-python = ">=(\d+)\.(\d+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"),
                     re.M).groups()


def test_binder_files_pick_a_python_the_kit_supports_and_write_the_student_notebooks(tmp_path):
    """repo2docker installs pyproject.toml's package (`pip install .`), then runs postBuild."""
    assert not (ROOT / "binder").exists() and not (ROOT / ".binder").exists(), \
        "a binder/ folder would make repo2docker ignore pyproject.toml"
    major, minor = (int(x) for x in (ROOT / "runtime.txt").read_text().strip().removeprefix("python-").split("."))
    assert (major, minor) >= tuple(int(x) for x in requires_python())
    post = ROOT / "postBuild"
    assert post.stat().st_mode & 0o111, "postBuild must be executable"
    commands = [ln.split("#")[0].strip() for ln in post.read_text().splitlines() if ln.startswith("python ")]
    assert "python -m lessonkit.cli.labsettings" in commands  # widget state saved: views survive a reopen
    [command] = [c for c in commands if "workshop student" in c]
    assert command == "python -m lessonkit.workshop student --lessons lessons --out work"
    args = command.split()[3:]
    assert main([*args[:2], str(ROOT / args[2]), args[3], str(tmp_path / "work")]) == 0
    assert sorted(p.name for p in (tmp_path / "work").glob("*.ipynb")) == [p.name for p in NOTEBOOKS]


def test_the_dockerfile_is_a_single_user_image_built_from_files_that_exist():
    """z2jh's single-user image: uid 1000, the home as the notebook root, start-user as ENTRYPOINT (z2jh's
    singleuser.cmd replaces only the CMD), no hub bound to 0.0.0.0. tests/test_hub.py runs start-user."""
    from dockerfile_parse import DockerfileParser

    parser = DockerfileParser(path=str(ROOT / "workshop" / "Dockerfile"))
    steps = [(s["instruction"], s["value"]) for s in parser.structure]
    base = parser.baseimage
    assert re.fullmatch(r"python:3\.\d+-slim", base) and tuple(int(x) for x in base[7:].split("-")[0].split(".")) \
        >= tuple(int(x) for x in requires_python())
    copied = [v.split()[0] for k, v in steps if k == "COPY"]
    assert all((ROOT / src).exists() for src in copied), copied
    stages = sorted(p.name for p in ROOT.glob("s[0-9][0-9]_*") if p.is_dir())
    assert set(stages + ["lessonkit", "lessons", "workshop", "pyproject.toml"]) <= set(copied)
    assert any(k == "RUN" and "pip install -e '.[hub]'" in v for k, v in steps)
    assert any(k == "RUN" and "python -m lessonkit.cli.labsettings" in v for k, v in steps)
    last = {k: v for k, v in steps}
    assert last["USER"] == "1000" and last["WORKDIR"] == "/home/jovyan" and parser.envs["HOME"] == "/home/jovyan"
    assert json.loads(last["ENTRYPOINT"]) == ["/srv/agent-lessons/workshop/start-user"]
    assert json.loads(last["CMD"]) == ["jupyterhub-singleuser"]
    assert (ROOT / "workshop" / "start-user").stat().st_mode & 0o111, "start-user must be executable"
    assert "WORKSHOP_HUB_IP" not in parser.envs and "jupyterhub_config" not in parser.content
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".venv", "work", ".git", "artifacts", ".hub"} <= set(ignored)


def deep_merge(base, over):
    """helm's merge of a values file over the chart's defaults: dicts merged key by key, anything else replaced.
    Example: deep_merge({"a": {"b": 1, "c": 2}}, {"a": {"b": 3}}) -> {"a": {"b": 3, "c": 2}}"""
    if isinstance(base, dict) and isinstance(over, dict):
        return {**base, **{k: deep_merge(base[k], v) if k in base else v for k, v in over.items()}}
    return over


def z2jh_values(sets=None):
    import yaml

    shared = ROOT.parent / "shared" / "z2jh"
    if not shared.is_dir():
        pytest.skip(f"the chart's values.yaml and values.schema.yaml are not here: {shared} is absent")
    defaults = yaml.safe_load((shared / "values.yaml").read_text(encoding="utf-8"))
    schema = yaml.safe_load((shared / "values.schema.yaml").read_text(encoding="utf-8"))
    ours = yaml.safe_load((ROOT / "workshop" / "z2jh-values.yaml").read_text(encoding="utf-8"))
    return ours, deep_merge(deep_merge(defaults, ours), sets or {}), schema


def guide_cluster_commands() -> dict[str, list[str]]:
    """The docker and helm lines of workshop/README.md's cluster section, split into words."""
    text = (ROOT / "workshop" / "README.md").read_text(encoding="utf-8")
    block = text[text.index("## A bigger room"):].split("```sh\n", 1)[1].split("```", 1)[0]
    return {line.split()[0]: line.split() for line in block.splitlines() if line.strip()}


def guide_sets() -> dict:
    """helm's --set a.b.c=VALUE of the guide's command as the values they set (shell variables as 'x' * 40)."""
    sets: dict = {}
    words = guide_cluster_commands()["helm"]
    for flag, value in zip(words, words[1:]):
        if flag == "--set":
            path, _ = value.split("=", 1)
            *parents, last = path.split(".")
            node = sets
            for key in parents:
                node = node.setdefault(key, {})
            node[last] = "x" * 40
    return sets


def test_the_guides_cluster_commands_use_the_kits_files():
    commands = guide_cluster_commands()
    _, merged, _ = z2jh_values()
    image = f"{merged['singleuser']['image']['name']}:{merged['singleuser']['image']['tag']}"
    assert commands["docker"][:6] == ["docker", "build", "-f", "workshop/Dockerfile", "-t", image]
    assert commands["helm"][:7] == ["helm", "upgrade", "--install", "lessons", "jupyterhub/jupyterhub", "--values",
                                    "workshop/z2jh-values.yaml"]
    assert set(guide_sets()["hub"]["config"]["SharedPasswordAuthenticator"]) == {"user_password", "admin_password"}


@pytest.mark.parametrize("with_sets", [False, True], ids=["file", "file+the-guides-set"])
def test_the_z2jh_values_merged_over_the_charts_defaults_pass_its_schema(with_sets):
    from jsonschema import Draft7Validator

    _, merged, schema = z2jh_values(guide_sets() if with_sets else None)
    errors = [f"{'.'.join(map(str, e.path))}: {e.message}" for e in Draft7Validator(schema).iter_errors(merged)]
    assert errors == []


def test_the_schema_check_catches_the_old_culling_key():
    from jsonschema import Draft7Validator

    _, merged, schema = z2jh_values({"culling": {"enabled": True}})
    assert [e.message for e in Draft7Validator(schema).iter_errors(merged)] == \
        ["Additional properties are not allowed ('culling' was unexpected)"]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_the_z2jh_values_name_the_admin_keep_passwords_out_and_write_the_student_notebooks():
    ours, merged, _ = z2jh_values()
    user = merged["singleuser"]
    assert user["cmd"] == "jupyterhub-singleuser" and user["image"]["name"].endswith("/agent-lessons")
    assert user["uid"] == 1000 and user["storage"]["homeMountPath"] == "/home/jovyan"
    assert "lifecycleHooks" not in ours["singleuser"], "the image's ENTRYPOINT writes ~/work, before the server starts"
    assert user["defaultUrl"] == "/lab/tree/work/s01_loop.ipynb"
    assert user["memory"]["guarantee"] == "512M" and user["memory"]["limit"] == "1G" and user["cpu"]["limit"] == 1
    assert ours["cull"] == {"enabled": True, "timeout": 3600, "every": 600}
    config = merged["hub"]["config"]
    # No first-login takeover: the admin is named, and logs in only with the instructor's own password.
    assert config["JupyterHub"]["authenticator_class"] == "shared-password"
    assert config["Authenticator"]["admin_users"] == ["instructor"]
    assert "SharedPasswordAuthenticator" not in config, "passwords come from --set, never the committed file"
    keys = lambda d: [k for k, v in d.items() for k in [k, *(keys(v) if isinstance(v, dict) else [])]]
    assert not [k for k in keys(ours) if "password" in k.lower() or "secret" in k.lower()]



def test_the_z2jh_values_run_the_room_service_beside_the_hub_and_every_pod_reports_to_it():
    """The room view on the cluster: the service the one-machine hub runs, as a container of the hub's pod
    (the kit's image), reachable from the proxy and the students' pods, its token the chart's own."""
    from urllib.parse import urlparse

    from lessonkit.workshop.roomservice import NAME

    _, merged, _ = z2jh_values()
    hub, user = merged["hub"], merged["singleuser"]
    url = urlparse(hub["services"][NAME]["url"])
    [side] = [c for c in hub["extraContainers"] if c["name"] == NAME]
    env = {e["name"]: e.get("value", e.get("valueFrom")) for e in side["env"]}
    assert side["image"] == f"{user['image']['name']}:{user['image']['tag']}"
    assert side["command"] == ["python", "-m", "lessonkit.workshop", "room-service"]
    assert env["JUPYTERHUB_API_TOKEN"] == {"secretKeyRef": {"name": "hub", "key": f"hub.services.{NAME}.apiToken"}}
    assert env["JUPYTERHUB_SERVICE_PREFIX"] == f"/services/{NAME}/" and env["JUPYTERHUB_SERVICE_NAME"] == NAME
    assert urlparse(env["JUPYTERHUB_SERVICE_URL"]).port == url.port == side["ports"][0]["containerPort"]
    assert [p["port"] for p in hub["service"]["extraPorts"]] == [url.port]
    assert user["extraEnv"]["LESSONS_ROOM_URL"] == f"{hub['services'][NAME]['url']}/services/{NAME}/"
    assert user["extraEnv"]["LESSONS_REPLAY_QUIET"] == "1"
    assert [p["port"] for rule in hub["networkPolicy"]["ingress"] for p in rule["ports"]] == [url.port]
    assert [p["port"] for rule in user["networkPolicy"]["egress"] for p in rule["ports"]] == [url.port]
    assert f"access:services!service={NAME}" in hub["config"]["Spawner"]["server_token_scopes"]
    assert hub["loadRoles"][NAME] == {"services": [NAME], "scopes": ["list:users", "read:users"]}
    assert env["LESSONS_ROOM_STATE"].startswith(side["volumeMounts"][0]["mountPath"])
    config = (ROOT / "workshop" / "jupyterhub_config.py").read_text(encoding="utf-8")   # the same on one machine
    assert f'"name": "{NAME}"' in config and f"access:services!service={NAME}" in config


@pytest.mark.parametrize("path", sorted((ROOT / "lessons" / "zh").glob("*.ipynb")), ids=lambda p: p.stem)
def test_a_chinese_lesson_is_tagged_as_its_english_one(path):
    """The rule finds the same exercise / check / solution cells in Chinese (before: a markdown cell
    naming the reference as 参考 was not seen, and `tag` dropped the zh lessons' solution tags)."""
    english = nbformat.read(LESSONS / path.name, as_version=4).cells
    chinese = nbformat.read(path, as_version=4).cells
    assert classify(chinese, STARTERS) == classify(english, STARTERS)
