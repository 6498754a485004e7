"""Tests of a sizing's plan workbook: its question (server types, added to the inventory or not,
headroom) and the inventory it was asked with come back with ``plan --from-workbook``."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from openpyxl import load_workbook

from planner.cli import main
from planner.inputs.catalog import load_catalog
from planner.inputs.importers import read_plan_inputs
from planner.inputs.importers.workbook import PLAN_INPUTS_SHEET
from planner.inputs.problems import InputError

INVENTORY_HEADER = (
    "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,mig_enabled,"
    "platform\n"
)
INVENTORY = INVENTORY_HEADER.encode() + (
    b"g0h0,c2,T4,1,128.0,1024.0,100.0,no,no,kubernetes\n"
    b"g1h0,c2,H200-141GB-NVL,4,48.0,768.0,200.0,no,yes,kubernetes\n"
    b"g2h0,c1,H100-80GB-PCIe,4,16.0,1024.0,200.0,yes,no,kubernetes\n"
)
WORKLOADS = (
    b"name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,vcpus,ram_gib,"
    b"live_migration,isolation,latency_tolerant\n"
    b"w0,notebook,4,2.0,60.8,0.28,9-17,5,1.0,4.0,no,no,yes\n"
)
METHODS = ["--methods", "passthrough", "vgpu"]


@pytest.fixture
def inputs(tmp_path: Path) -> list[str]:
    """``--inventory`` and ``--workloads`` of three owned hosts and one class."""
    (tmp_path / "inv.csv").write_bytes(INVENTORY)
    (tmp_path / "wl.csv").write_bytes(WORKLOADS)
    return ["--inventory", str(tmp_path / "inv.csv"), "--workloads", str(tmp_path / "wl.csv")]


def _planned(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The summary lines ``plan`` prints (the line naming the workbook written left out)."""
    assert main(["plan", *argv]) == 0
    printed = capsys.readouterr()
    assert "input:" not in printed.err
    return [line for line in printed.out.splitlines() if not line.startswith("Wrote ")]


def _purchase_rows(book: Path) -> list[tuple[str, str]]:
    sheet = load_workbook(book)[PLAN_INPUTS_SHEET]
    return [(r[1], r[2]) for r in sheet.iter_rows(values_only=True) if r[0] == "purchase"]


def _without_purchase_rows(book: Path, to: Path) -> Path:
    """``book`` as a planner that wrote no purchase row would have written it."""
    opened = load_workbook(book)
    sheet = opened[PLAN_INPUTS_SHEET]
    for number in reversed(range(1, sheet.max_row + 1)):
        if sheet.cell(number, 1).value == "purchase":
            sheet.delete_rows(number)
    opened.save(to)
    return to


def _of_no_host(book: Path, to: Path) -> Path:
    """``book`` keeping an inventory of no host (its header alone), with its check, as the
    planner wrote a sizing's workbook before it kept the inventory given."""
    opened = load_workbook(book)
    for row in opened[PLAN_INPUTS_SHEET].iter_rows():
        if row[0].value == "file" and row[1].value == "inventory.csv":
            row[2].value = INVENTORY_HEADER
        if row[0].value == "check" and row[1].value == "parts of inventory.csv":
            digest = hashlib.sha256(INVENTORY_HEADER.encode()).hexdigest()[:16]
            row[2].value = f"1 part, sha256: {digest}"
    opened.save(to)
    return to


def test_a_sizing_comes_out_again_from_its_workbook(
    tmp_path: Path, inputs: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`plan --size TYPE --out` then `plan --from-workbook`: the same sizing (servers bought,
    cost, served), where the restore was refused for an inventory of no host; the workbook
    keeps the inventory given and the type by its name."""
    book = tmp_path / "size.xlsx"
    sized = _planned([*inputs, "--size", "hgx-a100-8", *METHODS, "--out", str(book)], capsys)
    assert sized[0].startswith("Recommended plan: Buy 1 × hgx-a100-8")
    assert _purchase_rows(book) == [
        ("server", "hgx-a100-8"),
        ("add_to_inventory", "no"),
        ("headroom", "0"),
    ]
    assert read_plan_inputs(book).inventory_csv.count(b"\n") == 4
    assert _planned(["--from-workbook", str(book), *METHODS], capsys) == sized


def test_a_sizing_of_an_unnamed_server_type_comes_out_again(
    tmp_path: Path, inputs: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A type given as MODEL:GPUS:CORES:RAM_GIB is kept as such and sized again the same."""
    book = tmp_path / "size.xlsx"
    argv = [*inputs, "--size", "L40S:4:64:512", *METHODS, "--out", str(book)]
    sized = _planned(argv, capsys)
    assert ("server", "L40S:4:64.0:512.0") in _purchase_rows(book)
    assert _planned(["--from-workbook", str(book), *METHODS], capsys) == sized


def test_an_addition_with_headroom_comes_out_again_from_its_workbook(
    tmp_path: Path, inputs: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`--size --add-to-inventory --headroom 1`, restored: the same purchase on top of the same
    owned hosts, where the restore planned a plain fit of them."""
    book = tmp_path / "add.xlsx"
    argv = [*inputs, "--size", "hgx-a100-8", "--add-to-inventory", "--headroom", "1"]
    added = _planned([*argv, *METHODS, "--out", str(book)], capsys)
    assert "on top of your 3 hosts" in added[0]
    assert "any 1 host per cluster can fail" in added[0]
    assert _planned(["--from-workbook", str(book), *METHODS], capsys) == added


def test_flags_given_win_over_the_workbook_s_question(
    tmp_path: Path, inputs: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """--headroom given beside --from-workbook replaces the workbook's; --size replaces its
    server types (as beside --scenario)."""
    book = tmp_path / "add.xlsx"
    argv = [*inputs, "--size", "hgx-a100-8", "--add-to-inventory", "--headroom", "1"]
    _planned([*argv, *METHODS, "--out", str(book)], capsys)
    without = _planned([*inputs, "--size", "hgx-a100-8", "--add-to-inventory", *METHODS], capsys)
    restored = _planned(["--from-workbook", str(book), "--headroom", "0", *METHODS], capsys)
    assert restored == without
    other = _planned([*inputs, "--size", "l40s-4", *METHODS], capsys)
    assert _planned(["--from-workbook", str(book), "--size", "l40s-4", *METHODS], capsys) == other


def test_a_workbook_without_purchase_rows_restores_a_fit(
    tmp_path: Path, inputs: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A fit's workbook holds no purchase row; a workbook without them (an older planner's)
    restores a fit of its inventory, as before."""
    fit_book = tmp_path / "fit.xlsx"
    fitted = _planned([*inputs, *METHODS, "--out", str(fit_book)], capsys)
    assert _purchase_rows(fit_book) == []
    assert _planned(["--from-workbook", str(fit_book), *METHODS], capsys) == fitted
    sized = tmp_path / "size.xlsx"
    _planned([*inputs, "--size", "hgx-a100-8", *METHODS, "--out", str(sized)], capsys)
    older = _without_purchase_rows(sized, tmp_path / "older.xlsx")
    assert _planned(["--from-workbook", str(older), *METHODS], capsys) == fitted


def test_a_sizing_workbook_of_no_host_restores_as_a_sizing(
    tmp_path: Path, inputs: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A sizing workbook that keeps an inventory of no host (as the planner wrote them before
    it kept the inventory given) restores as a sizing of the same servers, with --size when it
    has no purchase row; a fit of no host is still refused."""
    book = tmp_path / "size.xlsx"
    sized = _planned([*inputs, "--size", "hgx-a100-8", *METHODS, "--out", str(book)], capsys)
    emptied = _of_no_host(book, tmp_path / "empty.xlsx")
    assert read_plan_inputs(emptied).holds_no_host
    assert _planned(["--from-workbook", str(emptied), *METHODS], capsys) == sized
    older = _without_purchase_rows(emptied, tmp_path / "older.xlsx")
    restored = _planned(["--from-workbook", str(older), "--size", "hgx-a100-8", *METHODS], capsys)
    assert restored == sized
    assert main(["plan", "--from-workbook", str(older), *METHODS]) == 2
    assert "no usable host row" in capsys.readouterr().err


def _edited(book: Path, to: Path, rows: dict[str, str | None]) -> Path:
    """``book`` with the value of each purchase row named in ``rows`` replaced (None deletes
    the row)."""
    opened = load_workbook(book)
    sheet = opened[PLAN_INPUTS_SHEET]
    for number in reversed(range(1, sheet.max_row + 1)):
        if sheet.cell(number, 1).value != "purchase":
            continue
        name = sheet.cell(number, 2).value
        if name in rows and rows[name] is None:
            sheet.delete_rows(number)
        elif name in rows:
            sheet.cell(number, 3).value = rows[name]
    opened.save(to)
    return to


def test_a_purchase_row_that_cannot_be_used_is_a_problem_on_its_row(
    tmp_path: Path, inputs: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A headroom out of range, an add_to_inventory that is not yes or no, or a server type no
    catalog has is a problem naming its row and what is used instead; with no usable server
    type the sizing is refused, saying to give --size."""
    book = tmp_path / "add.xlsx"
    argv = [*inputs, "--size", "hgx-a100-8", "--add-to-inventory", "--headroom", "1"]
    _planned([*argv, *METHODS, "--out", str(book)], capsys)
    bad = _edited(book, tmp_path / "bad.xlsx", {"headroom": "99", "add_to_inventory": "maybe"})
    restored = read_plan_inputs(bad)
    assert (restored.headroom, restored.add_to_inventory) == (0, False)
    said = [str(p) for p in restored.problems]
    assert any("row 10, column 'value': headroom:" in s and "0 is used" in s for s in said)
    assert any("row 9, column 'value': add_to_inventory: 'maybe'" in s for s in said)
    unknown = _edited(book, tmp_path / "unknown.xlsx", {"server": "no-such-server"})
    with pytest.raises(InputError) as refused:
        read_plan_inputs(unknown).server_types(load_catalog())
    messages = [str(p) for p in refused.value.problems]
    assert "row 8" in messages[0]
    assert "'no-such-server' is no server type of the catalog" in messages[0]
    assert "--size TYPE" in messages[-1]
    assert main(["plan", "--from-workbook", str(unknown), *METHODS]) == 2
    assert "no server type of the sizing can be used" in capsys.readouterr().err


def test_harvest_of_a_sizing_workbook_harvests_the_inventory_given(
    tmp_path: Path, inputs: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`harvest --from-workbook` of a sizing's workbook harvests the scenario the sizing was
    asked with, as `harvest` of its files does (here: no VDI class, said); of one that keeps
    no host it is refused naming the inventory, not a traceback: harvest sizes nothing."""
    book = tmp_path / "size.xlsx"
    _planned([*inputs, "--size", "hgx-a100-8", *METHODS, "--out", str(book)], capsys)
    code = main(["harvest", *inputs])
    of_files = capsys.readouterr()
    assert "no VDI workload" in of_files.err
    assert main(["harvest", "--from-workbook", str(book)]) == code
    assert capsys.readouterr() == of_files
    emptied = _of_no_host(book, tmp_path / "empty.xlsx")
    assert main(["harvest", "--from-workbook", str(emptied)]) == 2
    assert "no usable host row" in capsys.readouterr().err
