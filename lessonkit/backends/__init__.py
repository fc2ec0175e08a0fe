"""The backends: what answers a lesson's requests, and the limits put on them.

    client.py    make_client(): one anthropic.Anthropic, offline by default, real API on request
    cassette.py  record once, replay for a room (LESSONS_BACKEND=record|replay)
    faults.py    injected faults (529, 429, timeouts) on the in-process or served offline model
    window.py    a lesson's context window: a request over N tokens never leaves the process
    errors.py    a failed connection, a refused key, an unknown model, each as one line a student can act on

The offline model itself is offline; this part only chooses and wraps what answers.
"""
