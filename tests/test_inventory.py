"""Tests for planner.inputs.inventory: loading, validating and round-tripping the inventory CSV."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.inventory import (
    Inventory,
    inventory_frame,
    inventory_from_frame,
    load_inventory,
)
from planner.inputs.platform import Platform
from planner.inputs.problems import InputError

ROOT = Path(__file__).resolve().parent.parent
HEADER = "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _csv(*rows: str, header: str = HEADER) -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode()


def test_sample_inventory_loads_without_problems(catalog: Catalog) -> None:
    """The shipped sample has no bad cell and expands its groups to 232 GPUs in 40 hosts: six
    vSphere clusters and one Kubernetes cluster (16 GPUs with MIG on, 16 with MIG off)."""
    loaded = load_inventory(ROOT / "data" / "sample" / "inventory.csv", catalog)
    assert loaded.problems == ()
    assert loaded.value.gpu_count == 232
    assert len(loaded.value.hosts) == 40
    assert len({h.cluster for h in loaded.value.hosts}) == 7
    nodes = [h for h in loaded.value.hosts if h.platform is Platform.KUBERNETES]
    assert sum(h.gpus for h in nodes if h.mig_enabled) == 16
    assert sum(h.gpus for h in nodes if not h.mig_enabled) == 16


def test_template_loads_without_problems(catalog: Catalog) -> None:
    """The template's example rows are valid, so a user can start from them."""
    loaded = load_inventory(ROOT / "data" / "templates" / "inventory_template.csv", catalog)
    assert loaded.problems == ()
    assert loaded.value.hosts


def test_one_row_gives_one_host_with_every_field(catalog: Catalog) -> None:
    """A row without count is one host named as written, its model the catalog's name."""
    data = _csv("gpu-a,prod,l40s,4,64,768,100,yes")
    (host,) = load_inventory(data, catalog).value.hosts
    assert host.name == "gpu-a"
    assert host.cluster == "prod"
    assert host.gpu_model == "L40S"
    assert (host.gpus, host.cpu_cores, host.ram_gib, host.network_gbps) == (4, 64, 768, 100)
    assert host.rdma is True
    assert host.mig_enabled is False


def test_count_expands_a_group_with_numbered_names(catalog: Catalog) -> None:
    """count 3 gives three identical hosts named NAME-01 .. NAME-03."""
    data = _csv("a100,dev,A100-80GB-PCIe,4,64,1024,100,no,3", header=HEADER + ",count")
    hosts = load_inventory(data, catalog).value.hosts
    assert [h.name for h in hosts] == ["a100-01", "a100-02", "a100-03"]
    assert {(h.gpus, h.gpu_model, h.rdma) for h in hosts} == {(4, "A100-80GB-PCIe", False)}


def test_count_above_99_widens_the_numbers(catalog: Catalog) -> None:
    """A group of 120 hosts is numbered 001 .. 120 so names sort in order."""
    data = _csv("n,edge,L4,1,8,64,10,no,120", header=HEADER + ",count")
    names = [h.name for h in load_inventory(data, catalog).value.hosts]
    assert names[0] == "n-001"
    assert names[-1] == "n-120"


def test_mig_defaults_to_the_models_capability(catalog: Catalog) -> None:
    """Without mig_enabled, MIG is on for MIG-capable models and off for others."""
    data = _csv("a,x,A30,4,32,256,25,no", "b,x,L4,2,32,256,25,no")
    a, b = load_inventory(data, catalog).value.hosts
    assert a.mig_enabled is True
    assert b.mig_enabled is False


def test_mig_on_a_model_without_mig_is_a_problem(catalog: Catalog) -> None:
    """mig_enabled yes on an L40S cannot be: the row is skipped with the reason."""
    data = _csv(
        "a,x,L40S,4,32,256,25,no,yes",
        "b,x,A30,4,32,256,25,no,no",
        header=HEADER + ",mig_enabled",
    )
    loaded = load_inventory(data, catalog, file_name="inv.csv")
    assert [h.name for h in loaded.value.hosts] == ["b"]
    assert loaded.value.hosts[0].mig_enabled is False
    (problem,) = loaded.problems
    assert (problem.file, problem.row, problem.column) == ("inv.csv", 2, "mig_enabled")
    assert "has no MIG" in problem.message


def test_columns_match_ignoring_case_and_spaces(catalog: Catalog) -> None:
    """'GPU Model', ' Host ' and 'RAM GiB' name the same columns as gpu_model, host, ram_gib."""
    header = "Host ,Cluster,GPU Model,GPUs per host,CPU cores,RAM GiB,Network Gbps,RDMA"
    (host,) = load_inventory(_csv("h1,c,T4,1,8,64,10,true", header=header), catalog).value.hosts
    assert (host.name, host.gpu_model, host.ram_gib, host.rdma) == ("h1", "T4", 64, True)


def test_unknown_model_lists_the_closest_names(catalog: Catalog) -> None:
    """'A100 80GB' is not a catalog name; the fix suggests both A100-80GB variants."""
    loaded = load_inventory(_csv("a,x,A100 80GB,4,32,256,25,no", "b,x,L4,2,32,256,25,no"), catalog)
    (problem,) = loaded.problems
    assert (problem.row, problem.column) == (2, "gpu_model")
    assert "unknown GPU model 'A100 80GB'" in problem.message
    assert "A100-80GB-PCIe" in problem.fix
    assert "A100-80GB-SXM" in problem.fix


def test_each_bad_cell_is_one_problem_and_good_rows_load(catalog: Catalog) -> None:
    """Two bad cells in one row give two problems; that row is skipped, the others load."""
    loaded = load_inventory(
        _csv(
            "good-1,x,L4,2,32,256,25,no",
            "bad,x,L4,two,32,256,25,maybe",
            "good-2,x,L4,2,32,256,25,no",
        ),
        catalog,
        file_name="hosts.csv",
    )
    assert [h.name for h in loaded.value.hosts] == ["good-1", "good-2"]
    found = {(p.file, p.row, p.column) for p in loaded.problems}
    assert found == {("hosts.csv", 3, "gpus_per_host"), ("hosts.csv", 3, "rdma")}
    assert all(p.fix for p in loaded.problems)


def test_range_messages_state_the_allowed_range(catalog: Catalog) -> None:
    """A negative RAM and a count of 0 say what range is allowed, with the unit."""
    loaded = load_inventory(
        _csv("a,x,L4,2,32,-5,25,no,0", "b,x,L4,2,32,256,25,no,1", header=HEADER + ",count"),
        catalog,
    )
    problems = {p.column: p for p in loaded.problems}
    assert set(problems) == {"ram_gib", "count"}
    assert "GiB" in problems["ram_gib"].fix
    assert "from 1 to 1000 hosts" in problems["count"].fix


def test_a16_hosts_hold_whole_boards(catalog: Catalog) -> None:
    """A16 boards carry 4 GPUs, so a host with 6 A16 GPUs is rejected with the rule."""
    loaded = load_inventory(_csv("v1,vdi,A16,6,64,512,25,no", "v2,vdi,A16,8,64,512,25,no"), catalog)
    assert [h.name for h in loaded.value.hosts] == ["v2"]
    (problem,) = loaded.problems
    assert problem.column == "gpus_per_host"
    assert "multiple of 4" in problem.fix


def test_duplicate_host_names_make_the_file_unusable(catalog: Catalog) -> None:
    """A group's generated name clashing with an explicit host raises, naming both rows."""
    data = _csv("h100,t,H100-80GB-SXM,8,64,1024,400,yes,2", "h100-02,t,L4,1,8,64,10,no,1")
    with pytest.raises(InputError) as raised:
        load_inventory(
            data.replace(HEADER.encode(), (HEADER + ",count").encode()),
            catalog,
            file_name="inv.csv",
        )
    (problem,) = raised.value.problems
    assert (problem.row, problem.column) == (3, "host")
    assert "already defined on row 2" in problem.message


def test_missing_required_column_is_fatal(catalog: Catalog) -> None:
    """Without a gpu_model column no host can be read; the problem names the column."""
    with pytest.raises(InputError) as raised:
        load_inventory(b"host,cluster\na,b\n", catalog, file_name="inv.csv")
    messages = [p.message for p in raised.value.problems]
    assert any("'gpu_model' is missing" in m for m in messages)
    assert all(p.file == "inv.csv" for p in raised.value.problems)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", "the file is empty"),
        (b"PK\x03\x04rest-of-a-zip", "Excel workbook"),
        (b"host,cluster\n\xe9t\xe9,prod\n", "not UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "this is a PNG image, not CSV text"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3", "this is a PDF document"),
    ],
)
def test_unusable_files_raise_with_a_fix(catalog: Catalog, data: bytes, expected: str) -> None:
    """Empty files, Excel workbooks, non-UTF-8 bytes and files of another kind picked by mistake
    (an image, a PDF) raise InputError with a fix."""
    with pytest.raises(InputError) as raised:
        load_inventory(data, catalog, file_name="upload.csv")
    (problem,) = raised.value.problems
    assert expected in problem.message
    assert problem.fix
    assert problem.file == "upload.csv"


def test_header_only_file_raises(catalog: Catalog) -> None:
    """A header with no host rows is unusable, not an empty inventory."""
    with pytest.raises(InputError, match="no usable host row"):
        load_inventory(_csv(), catalog)


def test_every_row_bad_raises_with_each_problem(catalog: Catalog) -> None:
    """When no row loads, the error lists the cell problems too, not only 'no usable row'."""
    with pytest.raises(InputError) as raised:
        load_inventory(_csv("a,x,Z9,2,32,256,25,no"), catalog)
    columns = [p.column for p in raised.value.problems]
    assert columns == ["gpu_model", None]


def test_blank_lines_count_as_rows(catalog: Catalog) -> None:
    """A blank line is a row in a spreadsheet, so the row after it is reported as row 4."""
    data = _csv("a,x,L4,2,32,256,25,no", "", "b,x,L4,2,32,256,25,oops")
    (problem,) = load_inventory(data, catalog).problems
    assert problem.row == 4


def test_a_header_repeated_by_joined_files_is_one_problem_and_both_parts_load(
    catalog: Catalog,
) -> None:
    """Two files joined one after the other repeat the header: that row is one problem saying
    so (not one per cell), and the hosts of both parts load."""
    data = _csv("a,x,L4,2,32,256,25,no", HEADER.replace("gpu_model", "GPU Model"))
    data += b"b,x,L4,2,32,256,25,no\n"
    loaded = load_inventory(data, catalog)
    assert [h.name for h in loaded.value.hosts] == ["a", "b"]
    (problem,) = loaded.problems
    assert (problem.row, problem.column) == (3, None)
    assert "header row is repeated" in problem.message
    assert problem.fix == "delete this row"


def test_unknown_column_is_reported_but_not_fatal(catalog: Catalog) -> None:
    """A misspelt optional column ('mig_enable') is reported with the right name; rows load."""
    data = _csv("a,x,A30,4,32,256,25,no,no", header=HEADER + ",mig_enable")
    loaded = load_inventory(data, catalog)
    assert len(loaded.value.hosts) == 1
    (problem,) = loaded.problems
    assert (problem.row, problem.column) == (None, "mig_enable")
    assert "'mig_enabled'" in problem.fix


def test_text_cells_are_kept_as_written(catalog: Catalog) -> None:
    """A host name that looks like a formula is stored as text, trimmed, never evaluated."""
    data = _csv('"  =1+1 ",x,L4,2,32,256,25,no')
    (host,) = load_inventory(data, catalog).value.hosts
    assert host.name == "=1+1"


def test_a_str_source_is_a_path(catalog: Catalog, tmp_path: Path) -> None:
    """A str is read as a path and the problems name that file."""
    path = tmp_path / "mine.csv"
    path.write_bytes(_csv("a,x,L4,2,32,256,25,no", "b,x,L4,2,32,256,25,perhaps"))
    loaded = load_inventory(str(path), catalog)
    assert loaded.problems[0].file == "mine.csv"


def test_frame_round_trip_is_stable(catalog: Catalog) -> None:
    """inventory -> frame -> inventory gives the same hosts (groups stay expanded)."""
    inventory = load_inventory(ROOT / "data" / "sample" / "inventory.csv", catalog).value
    frame = inventory_frame(inventory)
    assert len(frame) == len(inventory.hosts)
    again = inventory_from_frame(frame, catalog, file_name="edited")
    assert again.problems == ()
    assert again.value == inventory
    pd.testing.assert_frame_equal(inventory_frame(again.value), frame)


def test_edited_frame_is_validated_like_a_file(catalog: Catalog) -> None:
    """A bad cell typed in the dashboard's table is a problem at the row a CSV would show."""
    frame = inventory_frame(
        Inventory(load_inventory(_csv("a,x,L4,2,32,256,25,no"), catalog).value.hosts)
    )
    frame = pd.concat([frame, frame.assign(host="b", gpu_model="L5")], ignore_index=True)
    loaded = inventory_from_frame(frame, catalog, file_name="edited table")
    (problem,) = loaded.problems
    assert (problem.file, problem.row, problem.column) == ("edited table", 3, "gpu_model")
    assert [h.name for h in loaded.value.hosts] == ["a"]


def test_platform_defaults_to_vsphere_and_reads_aliases(catalog: Catalog) -> None:
    """Without a platform cell a host is vSphere; k8s, Kubernetes and bare metal are read."""
    header = HEADER + ",platform"
    data = _csv(
        "a,c,L40S,4,64,768,100,yes,",
        "b,c,L40S,4,64,768,100,yes,k8s",
        "c,c,L40S,4,64,768,100,yes,Kubernetes",
        "d,c,L40S,4,64,768,100,yes,Bare Metal",
        header=header,
    )
    loaded = load_inventory(data, catalog)
    assert loaded.problems == ()
    assert [h.platform.value for h in loaded.value.hosts] == [
        "vsphere",
        "kubernetes",
        "kubernetes",
        "bare-metal",
    ]


def test_unknown_platform_is_a_cell_problem_naming_the_choices(catalog: Catalog) -> None:
    """An unknown platform skips the row, names the column and lists the accepted values."""
    data = _csv("a,c,L40S,4,64,768,100,yes,mainframe", header=HEADER + ",platform")
    with pytest.raises(InputError) as raised:
        load_inventory(data, catalog)
    problem = next(p for p in raised.value.problems if p.column == "platform")
    assert problem.row == 2
    assert "vsphere, kubernetes, bare-metal" in problem.fix


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_a_utf16_inventory_with_its_byte_order_mark_loads(catalog: Catalog, encoding: str) -> None:
    """UTF-16 with a byte-order mark (Excel's 'Unicode Text', Windows PowerShell's ``>``) reads
    like UTF-8; the importers' detection already accepted it, so the loader must too."""
    text = _csv("gpu-01,prod,L40S,4,64,512,100,yes").decode()
    data = text.encode(encoding) if encoding == "utf-16" else b"\xfe\xff" + text.encode(encoding)
    loaded = load_inventory(data, catalog, file_name="inventory.csv")
    assert [(h.name, h.gpu_model, h.gpus) for h in loaded.value.hosts] == [("gpu-01", "L40S", 4)]


def test_cells_in_the_columns_units_are_read(catalog: Catalog) -> None:
    """``4 GPUs``, ``64 cores``, ``512 GiB`` and ``25GbE`` are the columns' own units: the row
    reads as if the numbers were bare."""
    loaded = load_inventory(_csv("a,p,L40S,4 GPUs,64 cores,512 GiB,25GbE,yes"), catalog)
    (host,) = loaded.value.hosts
    assert (host.gpus, host.cpu_cores, host.ram_gib, host.network_gbps) == (4, 64, 512, 25)
    assert loaded.problems == ()


def test_cells_in_other_units_skip_the_row_naming_the_number_to_write(catalog: Catalog) -> None:
    """``512 GB`` (two readings) and ``25 GB/s`` (bytes, not bits) are not converted silently:
    each is a problem naming file, row, column and the number to write; the row is skipped and
    listed, the other rows load."""
    data = _csv(
        "a,p,L40S,4,64,512,25,yes",
        "b,p,L40S,4,64,512 GB,25 GB/s,yes",
    )
    loaded = load_inventory(data, catalog, file_name="hosts.csv")
    assert [h.name for h in loaded.value.hosts] == ["a"]
    ram, network = loaded.problems
    assert (ram.file, ram.row, ram.column) == ("hosts.csv", 3, "ram_gib")
    assert "write 512 if 512 GB is meant as 512 GiB" in ram.fix
    assert (network.row, network.column, network.fix) == (
        3,
        "network_gbps",
        "write 200 (25 GB/s in Gbit/s)",
    )


def test_a_unit_on_a_semicolon_file_number_with_a_decimal_comma(catalog: Catalog) -> None:
    """``0,5 GiB`` in a semicolon-separated file: the unit comes off, then the decimal comma
    reads as a point."""
    data = _csv("a;p;L40S;4;64;511,5 GiB;25;yes", header=HEADER.replace(",", ";"))
    (host,) = load_inventory(data, catalog).value.hosts
    assert host.ram_gib == 511.5


def test_a_row_commented_out_with_a_hash_is_listed_not_planned(catalog: Catalog) -> None:
    """A row whose first cell starts with # (a row commented out, a '# rack 3' note) is read
    as a comment: no host is planned from it, and it is listed once, by row, as left out."""
    data = _csv(
        "# rack 3",
        "gpu-a,ml,L40S,4,64,1024,25,no",
        "#gpu-old,ml,T4,2,32,256,10,no",
    )
    loaded = load_inventory(data, catalog)
    assert [h.name for h in loaded.value.hosts] == ["gpu-a"]
    assert [(p.row, p.column) for p in loaded.problems] == [(2, None), (4, None)]
    assert all("starts with #" in p.message and not p.row_kept for p in loaded.problems)
    assert "delete the #" in loaded.problems[1].fix


def test_a_total_row_is_one_problem_naming_it_not_a_host(catalog: Catalog) -> None:
    """A spreadsheet's sum row (Total in the first cell, the text columns empty) is no host:
    it is one problem saying so, not one per empty cell; a host named total with every
    cell given is still a host."""
    data = _csv(
        "gpu-a,ml,L40S,4,64,1024,25,no",
        "total,ml,L40S,4,64,1024,25,no",
        "Total,,,8,128,2048,,",
    )
    loaded = load_inventory(data, catalog)
    assert [h.name for h in loaded.value.hosts] == ["gpu-a", "total"]
    ((problem),) = loaded.problems
    assert problem.row == 4
    assert "total row" in problem.message


def test_an_edited_tables_comment_and_total_rows_are_listed_not_planned(catalog: Catalog) -> None:
    """A table edited in the dashboard passes over a row whose first cell starts with # and a
    Total row with empty cells, listing each at its row, as the CSV loader does in a file."""
    columns = HEADER.split(",")
    frame = pd.DataFrame(
        [
            ["gpu-a", "ml", "L40S", 4, 64, 512, 25, "no"],
            ["# gpu-b", "ml", "L40S", 4, 64, 512, 25, "no"],
            ["Total", None, None, 8, 128, 1024, None, None],
        ],
        columns=columns,
    )
    loaded = inventory_from_frame(frame, catalog, file_name="edited table")
    assert [h.name for h in loaded.value.hosts] == ["gpu-a"]
    assert [(p.row, p.column, p.message.split(":")[0]) for p in loaded.problems] == [
        (3, None, "the row starts with # and is read as a comment"),
        (4, None, "'Total' and empty cells"),
    ]
