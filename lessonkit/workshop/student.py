"""Student notebooks: the lessons without their reference solutions, written into `work/`.

    lessons/s01_loop.ipynb ──student_version──> work/s01_loop.ipynb     (lessons/zh/ -> work/zh/, header in Chinese)
      solution cells  removed            exercise cells  kept (the starter), outputs cleared
      check cells     kept, outputs cleared              other cells and widget state kept
      + a header cell: which lesson, and how to reset it

The committed lessons stay the tested solutions; `work/` is git-ignored and outside
pytest's testpaths, so nothing a student types there can change `make test`. An
existing student notebook is never overwritten by `student`; `reset` replaces one
and keeps the student's copy in `work/.backup/`.

Example: write_students(Path("lessons"), Path("work"))
  -> ["work/s01_loop.ipynb: written", ...]; reset("s06", ...) -> "work/s06_compact.ipynb: reset ..."

Not modeled: merging a student's edits into a newer version of a lesson.
"""

from __future__ import annotations

import copy
import json
import os
import time
from pathlib import Path

from ..i18n import LANGS, tr
from .tags import CHECK, EXERCISE, SOLUTION, tags

# What JupyterLab writes on save: pinned in every lesson, so a save does not dirty git.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
HEADER_ID = "workshop-header"
BACKUP = ".backup"


def lesson_names(lessons: Path) -> list[str]:
    """The lesson notebooks' stems, in order. Example: lessons/ -> ['arena', 's01_loop', ...]"""
    return sorted(p.stem for p in Path(lessons).glob("*.ipynb"))


def resolve_lesson(name: str, lessons: Path) -> str:
    """A lesson stem from 's06', 's06_compact' or 's06_compact.ipynb'; a one-line error otherwise."""
    stem = Path(name).name.removesuffix(".ipynb")
    names = lesson_names(lessons)
    matches = [n for n in names if n == stem or n.split("_")[0] == stem]
    if len(matches) != 1:
        raise ValueError(f"{name!r} is not a lesson in {lessons}: use one of {', '.join(names)}")
    return matches[0]


def header_cell(stem: str, language: str = "en", where: str = "") -> dict:
    """The first cell of a student notebook, in the lesson's language. `where` is the lesson's
    folder below lessons/ ("zh/" for a Chinese lesson)."""
    text = tr("**Your copy of `lessons/{where}{stem}.ipynb`** (the reference solutions are left out; "
              "`exercise.hint()` gives hints, then the solution). Under each *Build it* heading, write your "
              "code in the first cell (tagged `exercise`) and run the check below it: it names what is still "
              "wrong. `make test` checks `lessons/` as shipped, never this copy.\n\n"
              "To start this notebook again, run `python -m lessonkit.workshop reset {short}` in a terminal, in "
              "your home folder or in this notebook's folder (in the kit's own folder, `make reset LESSON={short}` "
              "does the same); your copy is kept in `work/{where}{backup}/`. Each check you run also notes its "
              "result in `work/.progress/`, so your instructor sees how the room is doing.", language=language,
              where=where, stem=stem, short=stem.split("_")[0], backup=BACKUP)
    return {"cell_type": "markdown", "id": HEADER_ID, "metadata": {}, "source": text}


def student_version(nb: dict, stem: str, language: str = "en") -> dict:
    """The student notebook for a lesson notebook (a dict as json.load gives), as a new dict."""
    out = copy.deepcopy(nb)
    cells = []
    for cell in out["cells"]:
        roles = tags(cell)
        if SOLUTION in roles:
            continue
        if cell["cell_type"] == "code" and (EXERCISE in roles or CHECK in roles):
            cell["outputs"], cell["execution_count"] = [], None
        cells.append(cell)
    out["cells"] = [header_cell(stem, language, "" if language == "en" else f"{language}/")] + cells
    out["metadata"]["kernelspec"] = dict(KERNELSPEC)
    return out


def write_json(path: Path, nb: dict) -> None:
    """Write a notebook as nbformat (and so JupyterLab) does, validating it first."""
    import nbformat

    nbformat.write(nbformat.from_dict(nb), path)


def write_student(stem: str, lessons: Path, work: Path) -> Path:
    nb = json.loads((Path(lessons) / f"{stem}.ipynb").read_text(encoding="utf-8"))
    target = Path(work) / f"{stem}.ipynb"
    if not target.parent.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        _give([target.parent], owner_of(target.parent.parent))
    write_json(target, student_version(nb, stem, language_of(lessons)))
    return target


def language_of(lessons: Path) -> str:
    """The language of a lessons folder: its name when that is a language (lessons/zh), else 'en'."""
    return Path(lessons).name if Path(lessons).name in LANGS else "en"


def write_courses(lessons: Path, work: Path) -> list[str]:
    """write_students for the lessons and for each translation beside them (lessons/zh -> work/zh)."""
    if not Path(lessons).is_dir() or not any(Path(lessons).glob("*.ipynb")):
        raise ValueError(f"no lesson notebooks in {lessons}: point --lessons at the kit's lessons/ folder")
    lines = write_students(lessons, work)
    for folder in sorted(p for p in Path(lessons).iterdir() if p.is_dir() and p.name in LANGS):
        if any(folder.glob("*.ipynb")):
            lines += write_students(folder, Path(work) / folder.name)
    return lines


def write_students(lessons: Path, work: Path) -> list[str]:
    """Write every missing student notebook; keep the ones a student already has. Returns one line each."""
    lines = []
    for stem in lesson_names(lessons):
        target = Path(work) / f"{stem}.ipynb"
        if target.exists():
            lines.append(f"{target}: kept (your work); start again with: "
                         f"python -m lessonkit.workshop reset {stem.split('_')[0]}")
        else:
            write_student(stem, lessons, work)
            lines.append(f"{target}: written")
    return lines


def owner_of(work: Path) -> tuple[int, int] | None:
    """(uid, gid) to give what root writes into a student's work/: the owner of work/ (or of the home
    above it); None when not root or the folder is root's own."""
    if os.geteuid() != 0:
        return None
    for folder in (Path(work), Path(work).parent, Path(work).parent.parent):
        try:
            info = folder.stat()
        except OSError:
            continue
        return (info.st_uid, info.st_gid) if info.st_uid != 0 else None
    return None


def _give(paths, owner) -> None:
    """chown each path (never following a link) to the student, when root writes it."""
    if owner is None:
        return
    for path in paths:
        try:
            os.chown(path, *owner, follow_symlinks=False)
        except OSError:
            pass


def reset(name: str, lessons: Path, work: Path) -> str:
    """Write one student notebook afresh, moving the student's copy to work/.backup/ first. As root (an
    instructor resetting a student's notebook on a hub) every file written is the student's; and the
    room view forgets the exercise's old records (records.mark_reset), so an old "stuck" is gone."""
    stem = resolve_lesson(name, lessons)
    target = Path(work) / f"{stem}.ipynb"
    owner = owner_of(work)
    note = ""
    if target.is_symlink():
        target.unlink()
    if target.exists():
        backups = Path(work) / BACKUP
        if backups.is_symlink():
            raise ValueError(f"{backups} is a link: not written through")
        backups.mkdir(parents=True, exist_ok=True)
        _give([backups], owner)
        kept = backups / f"{stem}.{time.strftime('%Y%m%d-%H%M%S')}.ipynb"
        n = 1
        while kept.exists():
            kept, n = backups / f"{stem}.{time.strftime('%Y%m%d-%H%M%S')}-{n}.ipynb", n + 1
        target.replace(kept)
        _give([kept], owner)
        note = f"; your copy is in {kept}"
    write_student(stem, lessons, work)
    _give([target], owner)
    _forget(stem, lessons, work, owner)
    return f"{target}: reset{note}"


def _forget(stem: str, lessons: Path, work: Path, owner) -> None:
    """Mark the lesson's exercises reset in the student's records (work/.progress/, or ../.progress from work/zh/)."""
    from ..exercises import records
    from .progress import CHECK_CALL

    try:
        nb = json.loads((Path(lessons) / f"{stem}.ipynb").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    names = list(dict.fromkeys(n for c in nb["cells"] if CHECK in tags(c) for n in CHECK_CALL.findall(
        "".join(c["source"]))))
    base = Path(work).parent if Path(work).name in LANGS and Path(work).parent.name == "work" else Path(work)
    folder = base / records.FOLDER
    if folder.is_symlink() or not names:
        return
    student = None
    if owner is not None:   # root resetting a student's home: the room service hears it for that student
        import pwd

        try:
            student = pwd.getpwuid(owner[0]).pw_name
        except KeyError:
            student = base.parent.name
    try:
        records.mark_reset(folder, stem, names, student=student)
    except OSError:
        return
    _give([folder, folder / f"{stem}.jsonl"], owner)
