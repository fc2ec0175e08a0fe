"""offline.api: what the Messages API accepts and returns, as rules keyed by version, beta and model.

    validate.py       reject what the real API rejects, with its own error shapes (the messages)
    params.py         the request's parameters (max_tokens, temperature, tool_choice, ...)
    blocks.py         one content block: its type, its fields, where it may stand
    schemas.py        JSON Schemas in a request: tools' input_schema, structured outputs
    media.py          images and documents: what the API checks in them, their tokens
    versions.py       the `anthropic-version` a request asks for and the rules it adds
    betas.py          the `anthropic-beta` header against the kit's own table of betas
    models.py         the model names answered to, and what each allows
    context_edits.py  `context_management`: the edits applied before the request is read
    threads.py        message threads: the model holds the conversation
    cache.py          a simulated prompt cache: the usage a request reports
    errors.py         the API's error shape: status, type, message

Example: validate_request({"model": "offline", "max_tokens": 10, "messages": []})
         -> ApiError(400, "invalid_request_error", "messages: at least one message is required")
"""
