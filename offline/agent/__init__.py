"""offline.agent: what the offline model does next with the tools it is offered.

    policy.py      each turn: find the task, follow its plan, or answer
    plan.py        the plan for a task, chosen from the request alone
    progress.py    how far a plan is, read from the history's tool calls
    guard.py       the guard rails: never outside the workspace, typed commands only read
    discover.py    which files an "every <kind> file" task is about, from the listings shown
    inputs.py      a tool's input built from its input_schema and the request's words
    forced.py      `tool_choice`: the policy's answer, made to obey the request
    structured.py  structured output from the user's words (values.py: each field's value)
    thinking.py    the `thinking` block: what it is about to do, said first
    cite.py        a question about the request's documents: the best passage, cited when asked
    notes.py       with a memory tool: view it, note each decision, read it back
    delegate.py    "use a subagent to <job>": one `task` call
    scenarios.py   scripted scenarios: data files (scenarios/*.json) that drive a lesson's demo

Example: decide({"messages": [{"role": "user", "content": "Run `ls`"}], "tools": [bash]}, scenarios=[])
         -> Reply(text="Running `ls` (1/1).", calls=[("bash", {"command": "ls"})], refused=False)
"""
