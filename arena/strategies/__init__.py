"""arena.strategies: what each strategy does to the history before a request.

    registry.py      the strategies by name; token thresholds scaled to the window
    baselines.py     none, context editing, observation masking, recorded (Claude Code's own)
    summarizers.py   OpenHands' condenser and LangChain's summarisation middleware
    api_side.py      the API's own compaction and tool-result clearing
    kit_layers.py    the s06 / s07 agents and the s08 compactor as strategies
    recommended.py   the kit's recommended pipeline: batch clearing behind a stable breakpoint
    counted.py       s08's compactor measuring in the bill's tokens: the pipeline's summary layer
    breakeven.py     does a clearing pay for itself (the Lindy prior)
    oracle.py        the hindsight-best clearing schedule, a yardstick

Example: list(strategies()) -> ["none", "ctx-edit", "ctx-edit+5k", "api-compact", "masking-10", ...]
"""
