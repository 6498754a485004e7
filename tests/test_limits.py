"""Tests for planner.inputs.limits: huge inputs are refused up front with the limit named."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd
import pytest
from openpyxl import load_workbook

from planner.cli import main
from planner.inputs import limits
from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.inventory import inventory_from_frame, load_inventory
from planner.inputs.problems import InputError
from planner.inputs.workloads import load_workloads
from planner.output import export
from planner.time.harvesting import HarvestSettings, simulate_harvest

ROOT = Path(__file__).resolve().parent.parent
INVENTORY_HEADER = "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma"
WORKLOAD_HEADER = (
    "name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,vcpus,"
    "ram_gib,live_migration,isolation,latency_tolerant"
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _hosts_csv(rows: int, *, extra: str = "") -> bytes:
    lines = [INVENTORY_HEADER + (",notes" if extra else "")]
    lines += [f"h{i},c,L40S,4,64,512,100,yes" + (f",{extra}" if extra else "") for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def _message(error: pytest.ExceptionInfo[InputError]) -> str:
    return "\n".join(str(p) for p in error.value.problems)


def test_a_fifty_megabyte_inventory_is_refused_naming_the_size_limit(catalog: Catalog) -> None:
    """A million-row, 50 MB inventory is refused before it is read, naming the 20 MB limit."""
    data = _hosts_csv(1_000_000, extra="x" * 20)
    assert len(data) > 50_000_000
    with pytest.raises(InputError) as error:
        load_inventory(data, catalog)
    assert f"over the limit of {limits.MAX_FILE_MB} MB" in _message(error)


def test_a_file_under_the_size_limit_but_over_the_row_limit_is_refused(catalog: Catalog) -> None:
    """Short rows can pass the size limit; the row limit then refuses the file."""
    data = _hosts_csv(limits.MAX_ROWS + 1)
    assert len(data) < limits.MAX_FILE_BYTES
    with pytest.raises(InputError) as error:
        load_inventory(data, catalog)
    assert f"more than {limits.MAX_ROWS:,} rows" in _message(error)


def test_a_file_at_the_row_limit_loads(catalog: Catalog) -> None:
    """Exactly the row limit is allowed."""
    loaded = load_inventory(_hosts_csv(limits.MAX_ROWS), catalog)
    assert len(loaded.value.hosts) == limits.MAX_ROWS


def test_an_edited_table_over_the_row_limit_is_refused(catalog: Catalog) -> None:
    """The dashboard's edited table obeys the same row limit as a file."""
    frame = pd.DataFrame({"host": [f"h{i}" for i in range(limits.MAX_ROWS + 1)], "cluster": "c"})
    with pytest.raises(InputError) as error:
        inventory_from_frame(frame, catalog, file_name="inventory (edited)")
    assert f"more than {limits.MAX_ROWS:,} rows" in _message(error)


def test_host_groups_over_the_host_limit_are_refused(catalog: Catalog) -> None:
    """Eleven rows of 1,000 hosts each pass the row limit but not the host limit."""
    rows = [f"g{i},c,L4,1,64,512,100,yes,1000" for i in range(11)]
    data = ("\n".join([INVENTORY_HEADER + ",count", *rows]) + "\n").encode()
    with pytest.raises(InputError) as error:
        load_inventory(data, catalog)
    assert f"11,000 hosts, over the limit of {limits.MAX_HOSTS:,} hosts" in _message(error)


def test_gpus_over_the_gpu_limit_are_refused(catalog: Catalog) -> None:
    """Hosts within the host limit can still hold too many GPUs."""
    rows = [f"g{i},c,H100-80GB-SXM,64,64,512,100,yes,1000" for i in range(2)]
    data = ("\n".join([INVENTORY_HEADER + ",count", *rows]) + "\n").encode()
    with pytest.raises(InputError) as error:
        load_inventory(data, catalog)
    assert f"over the limit of {limits.MAX_GPUS:,} GPUs" in _message(error)


def test_instances_over_the_instance_limit_are_refused(catalog: Catalog) -> None:
    """Two classes of 100,000 instances each are over the total instance limit."""
    rows = [f"w{i},notebook,100000,0.25,10,0.1,8,5,4,32,no,no,yes" for i in range(2)]
    data = ("\n".join([WORKLOAD_HEADER, *rows]) + "\n").encode()
    with pytest.raises(InputError) as error:
        load_workloads(data, catalog)
    assert f"over the limit of {limits.MAX_INSTANCES:,} instances" in _message(error)


@pytest.mark.parametrize("backlog", ["1e12", "1e9"])
def test_a_huge_harvest_backlog_is_refused_naming_the_limit(
    backlog: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`harvest --backlog 1e12` exits 2 naming the jobs-a-day limit instead of running out of
    memory."""
    assert main(["harvest", "--backlog", backlog]) == 2
    assert f"over the limit of {limits.MAX_HARVEST_JOBS_PER_DAY:,} jobs a day" in (
        capsys.readouterr().err
    )


def test_the_harvest_simulation_refuses_a_backlog_over_the_limit() -> None:
    """The simulation itself checks the limit, whoever calls it."""
    settings = HarvestSettings(backlog_gpu_hours_per_day=1e12)
    with pytest.raises(ValueError, match="jobs a day"):
        simulate_harvest(4, [0.0] * 168, settings)


def test_the_dashboard_upload_limit_is_the_largest_file_limit() -> None:
    """Streamlit refuses uploads over the largest size a loader reads (kubectl JSON's); a
    smaller file over its own format's limit reaches its loader, which says so."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == limits.MAX_UPLOAD_MB
    assert max(limits.MAX_FILE_MB, limits.MAX_KUBECTL_JSON_MB) == limits.MAX_UPLOAD_MB


def test_a_frame_longer_than_an_excel_sheet_is_split_with_every_row() -> None:
    """Excel holds 1,048,576 rows with the header; one more data row goes to a second sheet."""
    frame = pd.DataFrame({"n": range(limits.EXCEL_MAX_ROWS)})
    parts = export.sheet_parts("Placement vGPU", frame)
    assert [name for name, _ in parts] == ["Placement vGPU", "Placement vGPU (2)"]
    assert [len(part) for _, part in parts] == [limits.EXCEL_MAX_ROWS - 1, 1]


def test_the_workbook_writes_a_long_table_on_continuation_sheets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a 5-row sheet limit, 10 rows fill three sheets, each with the header."""
    monkeypatch.setattr(export, "EXCEL_MAX_ROWS", 5)
    out = tmp_path / "long.xlsx"
    export.write_sheets({"Harvest by step": pd.DataFrame({"step": range(10)})}, out)
    book = load_workbook(out)
    assert book.sheetnames == ["Harvest by step", "Harvest by step (2)", "Harvest by step (3)"]
    values = [list(sheet.values) for sheet in book.worksheets]
    assert all(rows[0] == ("Time of week",) for rows in values)
    assert [v for rows in values for (v,) in rows[1:]] == list(range(10))
