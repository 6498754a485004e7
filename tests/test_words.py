"""How counts are worded: the noun agrees with the count, everywhere the product says one."""

from __future__ import annotations

from planner.cli import _main_reason
from planner.plan import NotPlaced
from planner.words import counted


def test_a_count_of_one_takes_the_singular_and_others_the_plural() -> None:
    assert counted(1, "GPU") == "1 GPU"
    assert counted(0, "GPU") == "0 GPUs"
    assert counted(1204, "row") == "1,204 rows"
    assert counted(1, "class", "classes") == "1 class"
    assert counted(3, "class", "classes") == "3 classes"
    assert counted(3, "GPU", between="fewer") == "3 fewer GPUs"
    assert counted(1, "instance", between="more") == "1 more instance"


def test_the_cli_line_of_a_plan_placing_none_counts_its_other_reasons() -> None:
    """'(and 1 other reason)', never '(and 1 other reasons)' or 'reason(s)'."""
    left = [
        NotPlaced("a#1", "a", "no host has room"),
        NotPlaced("a#2", "a", "no host has room"),
        NotPlaced("b#1", "b", "too slow"),
    ]
    assert _main_reason(left) == "no host has room (and 1 other reason)"
    left.append(NotPlaced("c#1", "c", "restricted"))
    assert _main_reason(left) == "no host has room (and 2 other reasons)"
