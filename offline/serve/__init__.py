"""offline.serve: how requests reach the offline model: in process, or over HTTP on 127.0.0.1.

    transport.py  the real `anthropic` SDK routed to the model in-process (offline_client)
    http.py       the HTTP face: routes, JSON bodies, SSE streams, error shapes
    asgi.py       the same as an ASGI app: what serving adds around http.handle
    server.py     uvicorn on 127.0.0.1 only (python -m offline serve)
    batches.py    Message Batches answered by the same model

Example: offline_client(OfflineModel()).messages.create(model="offline", max_tokens=50,
         messages=[{"role": "user", "content": "hi"}]) -> a Message
"""
