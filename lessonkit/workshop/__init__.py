"""The workshop kit: student notebooks, progress for the room, and the cell tags they rest on.

    tags.py      which cells are exercise / check / solution (a rule by content)
    student.py   lessons/ -> work/ without solutions; reset one with a backup
    progress.py  run every student notebook, one row per exercise or per student

Example: python -m lessonkit.workshop student && python -m lessonkit.workshop progress
"""
