"""Tests of the Workloads editor's check: rows and columns named as the editor shows them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.workloads import load_workloads
from ui.workload_editor import WHOLE_NUMBER_COLUMNS, check_edits, editor_table

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "workloads.csv"
LABELS = {"memory_gib": "memory [GiB]", "gpus": "gpus"}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="module")
def table(catalog: Catalog) -> pd.DataFrame:
    return editor_table(load_workloads(SAMPLE, catalog).value)


def test_whole_number_columns_are_held_as_decimals(table: pd.DataFrame) -> None:
    """The grid keeps a typed decimal point only in a decimal column, so 1.5 is never 15."""
    for column in WHOLE_NUMBER_COLUMNS:
        assert table[column].dtype == np.float64


def test_an_unchanged_table_applies_equal(table: pd.DataFrame, catalog: Catalog) -> None:
    """The sample read back from the editor is the same mix, written with whole numbers."""
    check = check_edits(table, catalog, LABELS)
    assert check.problems == ()
    assert check.workloads == load_workloads(SAMPLE, catalog).value
    assert b",72.0," not in check.csv()


def test_rows_are_counted_as_the_editor_shows_them(table: pd.DataFrame, catalog: Catalog) -> None:
    """After an empty row the editor's row number, class name and column heading are given."""
    edited = pd.concat(
        [
            table.iloc[:1],
            pd.DataFrame([[None] * len(table.columns)], columns=table.columns),
            table.iloc[1:],
        ],
        ignore_index=True,
    )
    edited.loc[2, "memory_gib"] = -4.0
    check = check_edits(edited, catalog, LABELS)
    (problem,) = check.problems
    name = table.loc[1, "name"]
    assert (problem.row, problem.workload, problem.label) == (3, name, "memory [GiB]")
    assert problem.sentence().startswith(f"Row 3 ({name}), column “memory [GiB]”: -4 is out")
    assert problem.sentence().endswith("in that cell.")
    assert check.workloads == ()


def test_two_classes_with_one_name_are_named(table: pd.DataFrame, catalog: Catalog) -> None:
    """A repeated name is a problem of the later row, not a silent drop."""
    edited = table.copy()
    edited.loc[1, "name"] = edited.loc[0, "name"]
    rows = {p.row for p in check_edits(edited, catalog, LABELS).problems}
    assert rows == {2}


def test_an_empty_table_says_so(table: pd.DataFrame, catalog: Catalog) -> None:
    """A table with every row deleted asks for a row, in the editor's words."""
    (problem,) = check_edits(table.iloc[0:0], catalog, LABELS).problems
    assert problem.row is None
    assert problem.sentence() == "The table has no workload class. Add a row, or load a preset."
