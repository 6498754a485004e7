"""How numbers read on screen: money, shares, memory, ratios. Formatting lives only here."""

from __future__ import annotations

import math
import re

__all__ = [
    "change",
    "count",
    "counted",
    "counted_change",
    "gib",
    "markdown_literal",
    "noun_of",
    "pct",
    "ratio",
    "seconds",
    "slowdown",
    "usd",
    "usd_change",
]

_DASH = "–"
"""Shown where a figure does not exist (no GPU used, nothing placed)."""


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def usd(value: float | None) -> str:
    """US dollars, compact: ``$950``, ``$12.3k``, ``$1.46M``."""
    if value is None or _missing(value):
        return _DASH
    size = abs(value)
    sign = "-" if value < 0 else ""
    if size >= 1e6:
        return f"{sign}${size / 1e6:,.2f}M"
    if size >= 1e4:
        return f"{sign}${size / 1e3:,.1f}k"
    return f"{sign}${size:,.0f}"


def pct(share: float | None) -> str:
    """A share in [0, 1] as a percentage: ``0.634`` -> ``63 %``."""
    if share is None or _missing(share):
        return _DASH
    return f"{share * 100:.0f} %"


def gib(value: float | None) -> str:
    """Memory in GiB, or TiB above 10,000 GiB."""
    if value is None or _missing(value):
        return _DASH
    if abs(value) >= 10_000:
        return f"{value / 1024:,.1f} TiB"
    return f"{value:,.0f} GiB"


def ratio(value: float | None) -> str:
    """A ratio such as GPUs used over the lower bound: ``1.04×``."""
    if value is None or _missing(value):
        return _DASH
    return f"{value:.2f}×"


def slowdown(factor: float | None) -> str:
    """A slowdown factor (1.0 = bare metal) as the extra time it costs: ``1.17`` -> ``+17 %``."""
    if factor is None or _missing(factor):
        return _DASH
    return f"+{(factor - 1) * 100:.0f} %" if factor >= 1 else f"{(factor - 1) * 100:.0f} %"


def count(value: float | None) -> str:
    """A whole number with thousands separators."""
    if value is None or _missing(value):
        return _DASH
    return f"{value:,.0f}"


def noun_of(value: float, noun: str, plural: str | None = None) -> str:
    """The noun agreeing with a count as it is written (whole, unsigned): ``host`` for 1 (and
    -1, +1, 0.8), ``hosts`` otherwise; ``plural`` for a noun not made plural by an ``s``
    (``class``: ``classes``)."""
    return noun if f"{abs(value):,.0f}" == "1" else plural or noun + "s"


def counted(value: float, noun: str, plural: str | None = None) -> str:
    """A count with its noun, singular for 1: ``1 problem``, ``2 problems``, ``1,204 rows``;
    ``plural`` for a noun not made plural by an ``s`` (``class``: ``classes``)."""
    return f"{count(value)} {noun_of(value, noun, plural)}"


def change(value: float | None, *, unit: str) -> str | None:
    """A signed change for a metric's delta: ``-4`` -> ``-4 GiB``; None when there is none
    (no earlier figure, or no change). A leading ``-`` is what Streamlit reads as a fall."""
    if value is None or _missing(value) or round(value) == 0:
        return None
    return f"{value:+,.0f} {unit}"


def counted_change(value: float | None, noun: str, plural: str | None = None) -> str | None:
    """A signed change of a count for a metric's delta, its noun agreeing: ``-4`` -> ``-4 GPUs``,
    ``1`` -> ``+1 GPU``; None when there is none (no earlier figure, or no change)."""
    if value is None or _missing(value) or round(value) == 0:
        return None
    return f"{value:+,.0f} {noun_of(value, noun, plural)}"


def usd_change(value: float | None, *, per: str) -> str | None:
    """A signed change in dollars: ``12000`` -> ``+$12.0k/year``; None when under a dollar."""
    if value is None or _missing(value) or abs(value) < 0.5:
        return None
    return f"{'+' if value > 0 else ''}{usd(value)}/{per}"


def seconds(value: float | None) -> str:
    """A wall time: ``0.042`` -> ``42 ms``, ``3.2`` -> ``3.2 s``."""
    if value is None or _missing(value):
        return _DASH
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.1f} s"


def markdown_literal(text: str) -> str:
    """``text`` shown literally inside Markdown: user text such as ``**x**`` or ``:smile:`` is
    not formatted (Streamlit's Markdown never renders HTML anyway)."""
    inline = _ACTIVE_INLINE.sub(lambda found: "\\" + found.group(0), text)
    return _ACTIVE_LINE_START.sub(r"\1\\\2", inline)


_ACTIVE_INLINE = re.compile(
    r"[\\`*\[\]<>~$|]"  # emphasis, code, links, HTML, strikethrough, maths, tables
    r"|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"  # emphasis (an underscore inside a word is text)
    r"|:(?=[A-Za-z])"  # :emoji: shortcodes, :material/icons: and :colour[text]
)
"""Characters Markdown formats wherever they stand in a line."""
_ACTIVE_LINE_START = re.compile(r"^(\s*\d*)([#+\-=.)])", re.MULTILINE)
"""What starts a heading, a list or a numbered list at the start of a line."""
