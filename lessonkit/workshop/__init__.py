"""The workshop kit: student notebooks, progress for the room, and the cell tags they rest on.

    tags.py      which cells are exercise / check / solution (a rule by content)
    student.py   lessons/ -> work/ without solutions; reset one with a backup
    progress.py  the room, live, from the records each check writes (lessonkit/exercises/records.py;
                 runs no student code); page.py: as a page
    verify.py    the grade: each answer re-checked where no student code runs (judge.py) on the outputs
                 of a child (harness.py) with its own user, namespaces and limits
      gradeplan.py   what to grade: the exercise cells, checks and references of the kit's own notebooks
      kitcopy.py     the read-only kit copies: the judge's, and the children's without the references
      judge.py       the verdicts: the kit's checks, calling the student's function in the child
      child.py       the child: its user, namespaces, environment, limits, and nothing left behind
      harness.py     the child's side: the cells run, the calls answered, as data (wire.py)
      jail.py        the judge's and each child's filesystem: only what they need
      sessions.py    the children grading on this machine, so one run's clean-up spares another's
    roster.py    who the students are: the hub's user list or a list of names
    roomservice.py  the room on a hub: a service the checks report to (a cluster has no homes to read)
    hubproxy.py  the hub's proxy, forwarding a whole room's requests at once

Example: python -m lessonkit.workshop student && python -m lessonkit.workshop progress
"""
