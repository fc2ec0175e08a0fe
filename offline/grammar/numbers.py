"""Numbers in a request, as people write them: digits, English words, Chinese numerals.

    "42", "3.5", "1,200", "2 million"      -> 42, 3.5, 1200, 2000000
    "forty-two", "one hundred and five"    -> 42, 105
    "四十二", "一百零五", "两万三千", "三个"   -> 42, 105, 23000, 3     ("一共", "张三": words, not numbers)

Example: numbers("Mary is 35, John forty-two") -> [(8, 35.0), (18, 42.0)]

Not modeled: ordinals ("third"), fractions in words ("a half"), Roman numerals.
"""

from __future__ import annotations

import re

ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen")
EN_NUMBERS = {w: k for k, w in enumerate(ONES.split())}
TENS = "zero ten twenty thirty forty fifty sixty seventy eighty ninety"
EN_TENS = {w: 10 * k for k, w in enumerate(TENS.split()) if k >= 2}
SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000, "dozen": 12}
ZH_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
ZH_UNIT = {"十": 10, "百": 100, "千": 1000}
ZH_BIG = {"万": 10_000, "亿": 100_000_000}
EN_NUMBER_RE = re.compile(r"\b(?:(?:" + "|".join(list(EN_NUMBERS) + list(EN_TENS) + list(SCALES))
                          + r")(?:[\s-]+(?:and\s+)?|\b))+", re.IGNORECASE)
DIGITS_RE = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:\s*(?:million|thousand|billion|k\b))?(?![\w])",
                       re.IGNORECASE)
ZH_MEASURE = r"[个位只本次岁件条行名人天年月号元块张台辆斤米]"
ZH_NUMBER_RE = re.compile(r"[零〇一二两三四五六七八九十百千万亿]+")


def _en_number(words: str) -> float | None:
    total, current, seen = 0, 0, False
    for w in re.findall(r"[a-z]+", words.lower()):
        if w in EN_NUMBERS:
            current += EN_NUMBERS[w]
        elif w in EN_TENS:
            current += EN_TENS[w]
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w in SCALES:
            total, current = total + max(current, 1) * SCALES[w], 0
        elif w == "and":
            continue
        else:
            return None
        seen = True
    return total + current if seen else None


def zh_number(text: str) -> int | None:
    """Example: '四十二' -> 42; '一百零五' -> 105; '两万三千' -> 23000; '三' -> 3"""
    if not text or not all(ch in ZH_DIGIT or ch in ZH_UNIT or ch in ZH_BIG for ch in text):
        return None
    total, section, digit = 0, 0, None
    for ch in text:
        if ch in ZH_DIGIT:
            digit = ZH_DIGIT[ch]
        elif ch in ZH_UNIT:
            section += (1 if digit is None else digit) * ZH_UNIT[ch]
            digit = None
        else:
            total += (section + (digit or 0)) * ZH_BIG[ch]
            section, digit = 0, None
    return total + section + (digit or 0)


def numbers(text: str) -> list[tuple[int, float]]:
    """(position, value) of every number in the text: digits, English words, Chinese numerals."""
    found = []
    for m in DIGITS_RE.finditer(text):
        raw = m.group(0).lower().replace(",", "").replace(" ", "")
        scale = next((v for k, v in (("million", 1e6), ("thousand", 1e3), ("billion", 1e9), ("k", 1e3))
                      if raw.endswith(k)), 1)
        found.append((m.start(), float(re.sub(r"[a-z]+$", "", raw)) * scale))
    for m in EN_NUMBER_RE.finditer(text):
        value = _en_number(m.group(0))
        if value is not None and m.group(0).strip().lower() not in ("a", "and"):
            found.append((m.start(), float(value)))
    for m in ZH_NUMBER_RE.finditer(text):
        value = zh_number(m.group(0))
        single = len(m.group(0)) == 1 and not re.match(ZH_MEASURE, text[m.end():m.end() + 1])
        if value is not None and not single:  # 一共, 一下, 张三: words, not numbers
            found.append((m.start(), float(value)))
    return sorted(found)
