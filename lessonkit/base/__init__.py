"""base: what every stage needs but none teaches, in one place a curious student can open.

    arguments.py      one-line checks of a caller's arguments (check_type, check_int, check_path,
                      check_client) and short_repr, a short picture of any value for an error
    history_shape.py  the one check of a history's shape (check_history, check_message)
    processes.py      run a command so that nothing it starts outlives the call (run_tree)
    folders.py        the agent's own record folders: the model may read there, not write
    safe_files.py     a file read as what it is: never through a link, regular files only, capped
    media_tokens.py   how many tokens an image or a PDF takes (the vision and PDF docs' formulas)
    readonly.py       a shell parser's guess of whether a command only reads (classify): s03 asks when
                      it cannot tell, and its guess is never trusted alone
    readonly_programs.py  the programs that guess allows and the options each may be given, read
                      the way each program parses them (getopt_long: prefixes, clusters, later places)
    sandbox.py        the OS sandbox every bash command of s03 and later runs in (Landlock, namespaces):
                      what it may write, enforced by the kernel; probe() checks it is really there

The stages call these with a one-line reason beside the import; the stages' own files
hold only what each stage teaches. The token counter (lessonkit/tokens.py), the console
(lessonkit/console.py) and the kernels (lessonkit/kernels.py) are the rest of the base.

Example: from lessonkit.base.history_shape import check_history
         check_history([{"role": "user", "content": None}]) -> ValueError("not a valid history: ...")

Not modeled: anything a stage teaches (it stays in the stage).
"""
