"""Tests of planner CSV reading (``planner.inputs.tabular``) against malformed files."""

from __future__ import annotations

import pytest

from planner.inputs.problems import InputError
from planner.inputs.tabular import read_csv_table


def test_a_quote_left_open_names_the_row_where_the_oversized_cell_starts() -> None:
    """A quote opened on row 3 and never closed makes the rest of the file one cell over
    Python's CSV field limit: the problem names row 3 and the fix, not just 'not valid CSV'."""
    tail = "\n".join(f"h{i},L4,1" for i in range(20_000))
    data = f'host,gpu_model,gpus_per_host\nh0,L4,1\n"h1,L4,1\n{tail}\n'.encode()
    with pytest.raises(InputError) as caught:
        read_csv_table(data, "inventory.csv")
    (problem,) = caught.value.problems
    assert problem.row == 3
    assert "the CSV limit" in problem.message
    assert "quote" in problem.fix
