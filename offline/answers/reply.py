"""What the offline model says when it has no tool call to make.

Four kinds of text, each built from the request:

    final       the end_turn answer once a plan is done: one line per planned call
                with its outcome (a file's size and the names it defines, a
                command's first output line, the error), from the results still
                visible, the assistant's own "Seen ..." notes and any summary
    in_words    a prompt with no tool intent: facts the conversation holds about
                what the prompt names, a recap if asked "what have we done",
                short definitions of the kit's terms it mentions, what it can do
    greeting    an empty task: which tools it has
    outside     a request outside the task grammar (grammar.py): what it can do offline,
                with one example, how to switch to a real model, and the offered tools
                it does not know; nothing was run

Example: final([("`echo hi`", "bash", {"command": "echo hi"}, "echo hi")], events with result "hi",
               head="Ran 1 command.") -> "Ran 1 command.\\n- `echo hi`: 1 line: hi"

Each is written in the language of the request (language.py: 'zh' for a mostly-Chinese one),
its sentences from lessonkit/i18n/zh/*.json; file names, commands and tool output stay verbatim.

Not modeled: knowledge. The model knows only what the conversation shows and
the few terms in GLOSSARY (GLOSSARY_ZH for a question in Chinese).
"""

from __future__ import annotations

import re

from lessonkit.i18n import tr

from ..conversation.calls import call_command, call_path, call_verb, describe, error_line, listing
from ..conversation.language import section_name
from ..conversation.reading import SEEN, Event
from ..conversation.roles import BY_NAME, tool_roles
from . import report
from .report import failed, plain  # an error flag or an exit status, never words in a file
from .sections import extract

GLOSSARY = {
    "context window": "the context window is the most tokens one request may hold: system prompt, "
                      "tools and the whole message history together",
    "token": "tokens are the units the model reads and bills; English prose is about 4 characters "
             "per token, code and JSON are denser, Chinese about 1 character per token",
    "micro": "micro-compaction replaces old tool results with a short placeholder such as "
             "\"[Previous: used read_file]\", keeping the most recent ones",
    "compact": "compaction shrinks the history when it nears the context window: old tool results "
               "become placeholders, or the whole history becomes a summary",
    "summar": "a summary replaces the history with six sections: requests, concepts, files, "
              "errors and fixes, pending tasks and current work",
    "cache": "the prompt cache stores request prefixes up to a cache_control breakpoint; a request "
             "that starts with the same blocks reads them at a tenth of the price",
    "agent loop": "the agent loop sends the history, runs every tool_use the model asks for, "
                  "appends the tool_results and repeats until the model stops asking",
    "max_tokens": "max_tokens caps the answer's length; an answer cut there has stop_reason "
                  "\"max_tokens\"",
}
# The same definitions for a question asked in Chinese, found by the Chinese terms it names.
GLOSSARY_ZH = {
    "context window": "上下文窗口（context window）是一次请求最多能容纳的 token 数："
                      "系统提示、工具定义和整段消息历史加在一起",
    "token": "token 是模型读取和计费的单位；英文大约 4 个字符一个 token，代码和 JSON 更密，中文大约 1 个字一个 token",
    "micro": "微压缩（micro-compaction）把旧的工具结果换成一个简短的占位符，例如 \"[Previous: used read_file]\"，"
             "只保留最近的几个",
    "compact": "压缩（compaction）在历史记录接近上下文窗口时把它缩小：旧的工具结果变成占位符，或者整段历史变成一份摘要",
    "summar": "摘要会用六个部分替换历史记录：用户请求、技术概念、文件与代码、错误与修复、待办任务和当前工作",
    "cache": "提示缓存（prompt cache）保存到 cache_control 断点为止的请求前缀；"
             "以相同内容开头的请求只需十分之一的价格读取它们",
    "agent loop": "智能体循环（agent loop）发送历史记录，执行模型要求的每个 tool_use，追加 tool_result，"
                  "一直重复到模型不再要求调用工具",
    "max_tokens": "max_tokens 限制回答的长度；在那里被截断的回答，stop_reason 是 \"max_tokens\"",
}
TERMS_ZH = {"上下文窗口": "context window", "token": "token", "令牌": "token", "微压缩": "micro", "压缩": "compact",
            "摘要": "summar", "总结": "summar", "提示缓存": "cache", "缓存": "cache", "智能体循环": "agent loop",
            "max_tokens": "max_tokens"}
EXAMPLE = "Create a file hello.py that prints Hello, World!"
EXAMPLE_ZH = "创建文件 hello.py，打印 Hello, World!"
ACTION = re.compile(r"^\W*(?:(?:please|can you|could you|now|also)\s+)*(?:create|write|make|add|build|implement|"
                    r"edit|modify|document|comment|annotate|tidy|clean|lint|extend|improve|fix|refactor|generate|delete|remove|rename|move|copy|update|change|convert|install|"
                    r"deploy|set up|translate|optimi[sz]e|debug|rewrite|insert|append|replace|run|execute)\b|"
                    r"^\W*(?:请|帮我)?\s*(?:创建|新建|写|编辑|修复|重构|实现|生成|删除|添加|优化|修改|运行|执行|安装|部署)",
                    re.IGNORECASE)
GREETING = re.compile(r"^\W*(hi|hello|hey|ciao|hallo|good (morning|afternoon|evening)|你好)\b\W*$", re.IGNORECASE)
RECAP_REQUESTS = 6  # a recap names the last this many earlier requests
RECAP = re.compile(r"what (did|have) (we|you) (do|done)|so far|recap|progress|what happened|remind me|"
                   r"where (were|are) we|做了什么|做过什么|干了什么|做了哪些|到目前为止|目前为止|进展|进度|回顾|"
                   r"刚才做|我们做", re.IGNORECASE)


def facts(events: list[Event], start: int = 0) -> dict[str, str]:
    """What the conversation says about each file or command: summaries, then notes, then results."""
    out: dict[str, str] = {}
    for e in events[max(start, 0):]:
        if e.kind == "summary":
            section = re.search(section_name("Files and code") + r"[:：]?\s*\n((?:- .*\n?)+)", e.text)
            for line in (section.group(1).splitlines() if section else []):
                path, _, about = line[2:].partition(": ")
                if about:
                    out[path] = about
        elif e.kind == "text":
            for key, about in SEEN.findall(e.text):
                out[key.strip("`")] = about
    calls = {e.call_id: e for e in events if e.kind == "call"}
    for e in events[max(start, 0):]:
        call = calls.get(e.call_id) if e.kind == "result" else None
        if call is None or e.text.startswith("[Previous"):
            continue
        for key in (call_path(call), call_command(call)):
            if key:
                out[key] = outcome(e, call)
    return out


def outcome(result: Event, call: Event | None = None, language: str = "en") -> str:
    """One line for a tool result. Example: 'Traceback...\nKeyError: x' -> 'error: KeyError: x'"""
    if failed(result, call):
        return tr("error: {message}", language=language,
                  message=error_line(result.text)[:160] or tr("(no message)", language=language))
    if not plain(result.text):
        return tr("done (no output)", language=language)
    if result.text.startswith("<persisted-output>"):
        where = re.search(r"Full output: (\S+)", result.text)
        return tr("large output saved to {where}", language=language,
                  where=where.group(1) if where else tr("disk", language=language))
    if call is not None and call_verb(call) == "listed":
        return listing(result.text, 10, language)
    return describe(result.text, language)


def note(events: list[Event]) -> str:
    """'Seen ...' lines about the newest tool results (the ones the next step follows)."""
    calls = {e.call_id: e for e in events if e.kind == "call"}
    newest = []
    for e in reversed(events):
        if e.kind != "result":
            break
        newest.insert(0, e)
    lines = []
    for e in newest[:4]:
        call = calls.get(e.call_id)
        if call is None or e.text.startswith("[Previous") or call_verb(call) == "listed":
            continue
        key = call_path(call) if call_verb(call) == "read" else f"`{call_command(call)}`" \
            if call_command(call) else call_path(call)
        if key:
            lines.append(f"Seen {key}: {outcome(e, call)}")
    return "".join(line + "\n" for line in lines)


def final(planned: list[tuple[str, str, dict, str]], events: list[Event], start: int, *, head: str,
          stopped: Event | None = None, language: str = "en") -> str:
    """The end_turn answer: a head line, then each planned call's outcome.

    `planned` holds (label, tool name, input, fact key) per call. The outcome is the
    result of the latest matching call still visible, else what notes and
    summaries say about the key, else that it was compacted away.
    """
    calls = [e for e in events[max(start, 0):] if e.kind == "call"]
    results = {e.call_id: e for e in events if e.kind == "result"}
    known = facts(events, start)
    lines, errors = [], 0
    for label, name, tool_input, key in planned:
        call = next((c for c in reversed(calls) if c.tool == name and c.input == tool_input), None)
        result = results.get(call.call_id) if call else None
        about = ""
        if result is not None and not result.text.startswith("[Previous"):
            about = outcome(result, call, language)
        else:
            about = known.get(key) or known.get(key.lstrip("./"))
        if not about:  # never claim a step ran when nothing shows it did
            about = (tr("not run: the plan stopped before this step", language=language)
                     if call is None and stopped is not None
                     else tr("done earlier (its result was compacted away)", language=language))
        errors += about.startswith((tr("error: {message}", language=language, message=""), "error:"))
        lines.append(tr("- {label}: {about}", language=language, label=label, about=about))
    if stopped is not None:
        text = report.stopped_head(stopped, language)
    elif errors and errors == len(planned):
        text = tr("That did not work.", language=language) if len(planned) == 1 else \
            tr("None of the {n} steps worked.", language=language, n=len(planned))
    elif errors:
        text = tr("{head} {bad} of {n} failed.", language=language, head=head, bad=errors, n=len(planned))
    else:
        text = head
    return text + ("\n" + "\n".join(lines) if lines else "")


def edit_failed(path: str, old: str, events: list[Event], start: int, language: str = "en") -> str:
    """The answer after an edit failed and the file was read to see why."""
    calls = {e.call_id: e for e in events if e.kind == "call"}
    error, content = "", None
    for e in events[max(start, 0):]:
        call = calls.get(e.call_id) if e.kind == "result" else None
        if call is None or call_path(call).lstrip("./") != path.lstrip("./"):
            continue
        if call_verb(call) == "edited" and failed(e, call):
            error = error_line(e.text)[:160] or tr("(no message)", language=language)
        elif call_verb(call) == "read" and not failed(e, call) and not e.text.startswith("[Previous"):
            content = e.text
    text = tr("I could not replace `{old}` in {path}: {error}.", language=language, old=old, path=path,
              error=error or tr("the edit failed", language=language))
    if content is not None:
        count = content.count(old)
        where = (tr("that text does not appear in it", language=language) if count == 0
                 else tr("that text appears {count} times, so the edit must name one", language=language, count=count)
                 if count > 1
                 else tr("it is in the file once, so the edit failed for another reason", language=language))
        text += tr(" I read {path} ({about}): {where}.", language=language, path=path,
                   about=describe(content, language), where=where)
    return text


def in_words(task: str, events: list[Event], tools: list, language: str = "en") -> str:
    """An answer in words to a prompt the policy has no tool call for."""
    if GREETING.match(task):
        return greeting(tools, language)
    if ACTION.search(task):  # a request to act that the grammar does not serve: never guessed at
        return outside(task, tools, language)
    parts = []
    known = facts(events)
    named = [k for k in known if re.search(r"(?<![\w.])" + re.escape(k.rsplit("/", 1)[-1]) + r"(?!\w)", task)]
    if named:
        parts.append(tr("From this conversation: {facts}.", language=language,
                        facts="; ".join(f"{k}: {known[k]}" for k in named[:6])))
    recapped = RECAP.search(task)
    if recapped:
        parts.append(recap(events, language))
    low = task.lower()
    defined = ([GLOSSARY_ZH[key] for term, key in TERMS_ZH.items() if term in task] if language == "zh"
               else [text for term, text in GLOSSARY.items() if term in low])  # found by the request's own terms
    defined = [] if recapped else defined  # "what have we done" asks for the recap, not a definition
    parts += [tr("In short, {text}.", language=language, text=text) for text in dict.fromkeys(defined)][:3]
    if not parts:
        return outside(task, tools, language)
    if not tools:
        parts.append(tr("No tools are offered in this request, so I can only answer in words.", language=language))
    return "\n".join(parts + unknown_tools(tools, language))


def outside(task: str, tools: list, language: str = "en") -> str:
    """The honest answer to a request outside the grammar: what it can do offline, how to get a real model.

    Example: outside("Write a poem", [bash]) -> 'I cannot do "Write a poem" offline: ... ANTHROPIC_BASE_URL ...'
    """
    gist = " ".join(task.split())
    gist = gist[:120] + ("…" if len(gist) > 120 else "")
    text = tr('I cannot do "{gist}" offline: I am the offline stand-in model, and I only follow plain requests '
              'from a fixed list (for example "{example}"). For anything else, use a real model: set '
              "LESSONS_BACKEND=anthropic with ANTHROPIC_API_KEY, or point ANTHROPIC_BASE_URL at any "
              "Anthropic-compatible endpoint (a local one works too, e.g. Ollama at http://localhost:11434).",
              language=language, gist=gist, example=EXAMPLE if language == "en" else EXAMPLE_ZH)
    if not tools:
        text += "\n" + tr("No tools are offered in this request, so I can only answer in words.", language=language)
    return "\n".join([text] + unknown_tools(tools, language))


def not_done(clauses: list[str], language: str = "en") -> str:
    """The lines that say which parts of a request were left out, so none is dropped silently."""
    return "\n".join(tr('Not done: "{clause}": that part is outside what I can do offline (a real model can: '
                        "LESSONS_BACKEND=anthropic).", language=language, clause=" ".join(c.split())[:120])
                     for c in clauses)


def unknown_tools(tools: list, language: str = "en") -> list[str]:
    """A line naming the offered tools the offline model never calls (none: an empty list)."""
    known = [t for t in tool_roles(tools).values()]
    names = [t.get("name", "?") for t in tools or [] if isinstance(t, dict) and t not in known
             and t.get("name") not in BY_NAME.values()]   # `task` and `memory` have plans of their own
    return [tr("Offered tools I do not know how to use offline: {names}.", language=language,
               names=", ".join(names))] if names else []


def recap(events: list[Event], language: str = "en") -> str:
    """What the conversation shows has been done (from the same extraction as summaries)."""
    sections = extract(events, language)
    earlier = sections["User requests"][:-1]   # the last request is this one, asking for the recap
    if earlier:
        shown = earlier[-RECAP_REQUESTS:]
        out = [tr("So far: {n} earlier request(s): {requests}.", language=language, n=len(earlier),
                  requests=("；" if language == "zh" else "; ").join(f"“{r}”" for r in shown))]
        if len(earlier) > len(shown):
            out.append(tr("({n} before those.)", language=language, n=len(earlier) - len(shown)))
    else:
        out = [tr("Nothing yet: this is the first request.", language=language)]
    if sections["Files and code"]:
        out.append(tr("Files: {files}.", language=language, files="; ".join(sections["Files and code"][-8:])))
    if sections["Errors and fixes"]:
        out.append(tr("Errors: {errors}.", language=language, errors="; ".join(sections["Errors and fixes"][-4:])))
    return " ".join(out)


def greeting(tools: list, language: str = "en") -> str:
    names = [t.get("name", "?") for t in tools or []]
    if not names:
        return tr("Hello! No tools are offered, so I can only answer in words. What would you like to know?",
                  language=language)
    return tr("Hello! I can use {names}. Give me a task about the files in this workspace.", language=language,
              names=", ".join(names))
