"""Screen formatting of money, shares, memory and ratios (ui.format)."""

from __future__ import annotations

import math

import pytest

from ui import format as fmt


@pytest.mark.parametrize(
    ("value", "text"),
    [(950.0, "$950"), (12_345.0, "$12.3k"), (1_460_000.0, "$1.46M"), (-20_000.0, "-$20.0k")],
)
def test_usd_is_compact(value: float, text: str) -> None:
    """Dollar amounts read as $950, $12.3k, $1.46M: three significant figures at most."""
    assert fmt.usd(value) == text


@pytest.mark.parametrize("missing", [None, math.nan])
def test_missing_figures_show_a_dash(missing: float | None) -> None:
    """A figure that does not exist (no instance placed, no bound) shows a dash, never 'nan'."""
    assert fmt.usd(missing) == "–"
    assert fmt.pct(missing) == "–"
    assert fmt.ratio(missing) == "–"
    assert fmt.slowdown(missing) == "–"


def test_shares_and_ratios() -> None:
    """A share 0.634 reads 63 %; a ratio to the lower bound 1.04 reads 1.04×."""
    assert fmt.pct(0.634) == "63 %"
    assert fmt.ratio(1.04) == "1.04×"


def test_slowdown_reads_as_extra_time() -> None:
    """A slowdown factor of 1.17 costs 17 % more time; 1.0 is bare metal (+0 %)."""
    assert fmt.slowdown(1.17) == "+17 %"
    assert fmt.slowdown(1.0) == "+0 %"


def test_memory_switches_to_tib_for_large_totals() -> None:
    """GPU memory totals above 10,000 GiB read in TiB so the figure stays short."""
    assert fmt.gib(640) == "640 GiB"
    assert fmt.gib(20_480) == "20.0 TiB"


def test_seconds_use_milliseconds_below_one_second() -> None:
    """Solve times under a second read in ms (42 ms), longer ones in s (3.2 s)."""
    assert fmt.seconds(0.042) == "42 ms"
    assert fmt.seconds(3.2) == "3.2 s"


def test_a_known_count_takes_its_noun_in_the_singular_or_the_plural() -> None:
    """A count the page knows is written with its noun agreeing, never 'value(s)'."""
    assert fmt.counted(1, "value") == "1 value"
    assert fmt.counted(0, "value") == "0 values"
    assert fmt.counted(1204, "row") == "1,204 rows"
    assert fmt.counted(2, "class", "classes") == "2 classes"


def test_a_count_written_as_one_takes_the_singular_even_signed_or_rounded() -> None:
    """The noun agrees with the count as written: '+1 GPU' and '-1 GPU' for a change of one,
    '1 GPU-hour' for 0.8 written as 1, '2 GPUs' otherwise (a card read '+1 GPUs')."""
    assert fmt.counted_change(1, "GPU") == "+1 GPU"
    assert fmt.counted_change(-1, "GPU") == "-1 GPU"
    assert fmt.counted_change(-4, "GPU") == "-4 GPUs"
    assert fmt.counted_change(0, "GPU") is None
    assert fmt.counted(0.8, "GPU-hour") == "1 GPU-hour"
    assert fmt.counted(1.6, "GPU-hour") == "2 GPU-hours"
    assert fmt.noun_of(-1, "instance") == "instance"
    assert fmt.noun_of(3, "class", "classes") == "classes"
