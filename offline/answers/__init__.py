"""offline.answers: what the offline model says, read back from what the tools really printed.

    reply.py      the text when there is no tool call to make: the final answer, a greeting,
                  an answer in words, or "outside what I can do offline"
    report.py     the final answer for a grammar request, one line per action
    files.py      its lines for the entries about files as a whole (counts, sizes, the biggest)
    summarize.py  the summariser: an extractive summary of the conversation
    sections.py   the summary's six sections, from the conversation's events

Example: final(plan, events with a result "hi") -> "Ran 1 command.\\n- `echo hi`: 1 line: hi"
"""
