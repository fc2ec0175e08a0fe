"""The workshop kit: student notebooks, progress for the room, and the cell tags they rest on.

    tags.py      which cells are exercise / check / solution (a rule by content)
    student.py   lessons/ -> work/ without solutions; reset one with a backup
    progress.py  the room, live, from the records each check writes (lessonkit/exercises/records.py;
                 runs no student code); page.py: as a page
    verify.py    the grade: each answer re-checked in a child (harness.py) with its own user and limits
      gradeplan.py   what to grade: the exercise cells and checks of the kit's own notebooks
      kitcopy.py     the read-only copy of the kit the child imports the checks from
      child.py       the child: its user, environment, limits, and nothing left behind
      sessions.py    the children grading on this machine, so one run's clean-up spares another's

Example: python -m lessonkit.workshop student && python -m lessonkit.workshop progress
"""
