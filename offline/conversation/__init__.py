"""offline.conversation: a request read as a conversation: its events, its tools, its language.

    reading.py   the messages (or a dump pasted into one) as a list of events
    pasted.py    the conversation a summary request holds: the messages before it, or one in its prompt
    calls.py     what a tool call did and what its result says, read back from an event
    roles.py     which offered tool plays which role (read, write, run, list), and its parameters
    output.py    a tool's printed output: the exit marker, the text without it
    language.py  the language to answer in: the one the request was written in

Example: from_messages([{"role": "user", "content": "Run `ls`"}])
         -> [Event(role="user", kind="request", text="Run `ls`", ...)]
"""
