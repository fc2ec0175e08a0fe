"""arena.bills: what a request costs, as the log states it: prices, tokens, the prompt cache.

    prices.py        the price table, per model, with its source and date
    accounting.py    token counts memoized per block; the prompt cache over them
    breakpoints.py   where the client puts cache breakpoints ('last', 'sticky')
    calibration.py   the counter against logged usage; the prefix the log never shows
    model.py         a logged session's bill model: each block at its step's logged ratio, models, output
    log_events.py    what the log states each request held and read, taken as events for every strategy

Example: for_model("claude-opus-4-1-20250805").cost({"input_tokens": 1_000_000}) -> 15.0
"""
