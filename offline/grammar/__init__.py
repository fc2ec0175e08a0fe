"""offline.grammar: the plain requests the offline model understands, in English and Chinese.

    table.py    the grammar: its entries, and a request split into clauses
    clause.py   one clause -> its actions: the entries tried in order
    files.py    entries about files as a whole: which, how many, their lines, their size
    kinds.py    entries that act on every file of one kind: "delete all the .pyc files"
    shell.py    entries that ask the system: a typed command, the folder, a version
    parts.py    what entries are built from: the Action, name patterns, kinds of file
    polite.py   requests as people type them: greetings, question forms, typos
    numbers.py  numbers as people write them: digits, words, Chinese numerals
    refs.py     what "it" means: the file acted on last, or a question back

Example: parse_parts("show a.py and fix any style issues", roles)
         -> ([Action("show", ...)], ["fix any style issues"])   (what it serves, what it cannot)
"""
