"""Tests of vSphere hosts read from RVTools exports."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import pytest
from csv_layouts import LAYOUTS
from importer_samples import CATALOG, RVTOOLS, sample
from openpyxl import load_workbook

from planner.inputs.importers.detect import Format, detect_format
from planner.inputs.importers.estate import import_inventory
from planner.inputs.importers.hosts import HostFacts
from planner.inputs.importers.rvtools import read_rvtools
from planner.inputs.problems import InputError, skipped_summary
from tests.builders import with_row_moved, xlsx


def _values(host: HostFacts) -> dict[str, object]:
    return {f.field: f.value for f in host.facts}


def saved_as(data: bytes, sheet: str, cells: Mapping[str, tuple[str, str]]) -> bytes:
    """The workbook ``data`` with each cell named (``C3``) saved as (type, value) as another
    writer saves it: ``("n", "inf")`` a number cell holding inf, ``("e", "#DIV/0!")`` an error
    value a formula left. openpyxl saves a float inf as an empty cell."""
    book = load_workbook(io.BytesIO(data))
    for name, (kind, value) in cells.items():
        book[sheet][name].value = value
        book[sheet][name].data_type = kind
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_rvtools4_sample_vhost() -> None:
    """The RVTools 4 export (vCenter 8): 7 ESXi hosts in cluster Cluster, 32 cores and
    261,797 MiB (255.66 GiB) each, on vSphere; rows are numbered as the spreadsheet shows them;
    a note says plainly that RVTools has no GPU columns."""
    name, data = sample(RVTOOLS)
    read = read_rvtools(data, name)
    assert len(read.hosts) == 7
    first = read.hosts[0]
    assert first.name == "10.17.135.71"
    assert first.line == 2
    assert first.file == f"{name} [vHost]"
    assert _values(first) == {
        "platform": "vsphere",
        "cluster": "Cluster",
        "cpu_cores": 32.0,
        "ram_gib": pytest.approx(255.661, abs=1e-3),
    }
    assert all(_values(h)["cluster"] == "Cluster" for h in read.hosts)
    assert any("no GPU columns" in n.text for n in read.notes)
    assert read.problems == ()


def test_drifted_column_names_are_matched() -> None:
    """``Num Cores`` and ``Memory MB`` (older RVTools) are the cores and memory columns; header
    case and spacing do not matter."""
    data = xlsx(
        {"vHost": [("HOST", "cluster ", "Num Cores", "Memory MB"), ("esx1.lab", "gpu", 48, 524288)]}
    )
    (host,) = read_rvtools(data, "old.xlsx").hosts
    assert _values(host)["cpu_cores"] == 48.0
    assert _values(host)["ram_gib"] == 512.0
    assert _values(host)["cluster"] == "gpu"


def test_cores_from_sockets_and_memory_in_mib_column() -> None:
    """Without a core count, ``# CPU`` × ``Cores per CPU`` is derived; ``Memory MiB`` is MiB."""
    data = xlsx(
        {
            "vHost": [
                ("Host", "Cluster", "# CPU", "Cores per CPU", "Memory MiB"),
                ("esx2", "c", 2, 24, 1048576),
            ]
        }
    )
    (host,) = read_rvtools(data, "x.xlsx").hosts
    cores = host.get("cpu_cores")
    assert cores is not None
    assert (cores.value, cores.source) == (48.0, "derived")
    assert _values(host)["ram_gib"] == 1024.0


def test_cluster_from_vinfo_when_vhost_has_none() -> None:
    """A vHost tab without a cluster column takes each host's cluster from its VMs in vInfo."""
    data = xlsx(
        {
            "vInfo": [("VM", "Host", "Cluster"), ("vm-1", "esx3", "prod")],
            "vHost": [("Host", "# Cores", "# Memory"), ("esx3", 16, 131072)],
        }
    )
    (host,) = read_rvtools(data, "x.xlsx").hosts
    cluster = host.get("cluster")
    assert cluster is not None
    assert (cluster.value, cluster.source) == ("prod", "derived")
    assert cluster.note.file == "x.xlsx [vInfo]"


_KEPT_CORES = "the host is kept, planned with the core count the import assumes instead"
_KEPT_MEMORY = "the host is kept, planned with the memory the import assumes instead"


def test_bad_cells_are_problems_with_tab_row_and_column() -> None:
    """A core count that is no number is a problem naming the tab, row and column; the host keeps
    its other values. A row without a host name is left out with a problem."""
    data = xlsx(
        {
            "vHost": [
                ("Host", "Cluster", "# Cores", "# Memory"),
                ("esx4", "c", "many", 1024),
                (None, "c", 8, 1024),
            ]
        }
    )
    read = read_rvtools(data, "x.xlsx")
    assert [(p.file, p.row, p.column) for p in read.problems] == [
        ("x.xlsx [vHost]", 2, "# Cores"),
        ("x.xlsx [vHost]", 3, "Host"),
    ]
    assert "cpu_cores" not in _values(read.hosts[0])
    assert _values(read.hosts[0])["ram_gib"] == 1.0


_UNREADABLE = {
    "C2": ("n", "inf"),
    "D2": ("n", "-inf"),
    "C3": ("n", "NaN"),
    "D3": ("e", "#DIV/0!"),
    "B4": ("e", "#REF!"),
    "C4": ("n", "#VALUE!"),
    "A5": ("e", "#N/A"),
}


def test_an_infinite_nan_or_error_cell_is_a_problem_on_its_row_and_the_rest_is_read() -> None:
    """A number cell holding inf, -inf or NaN, or an error value (#DIV/0!, #REF!, #N/A), as
    writers other than Excel save them, is a problem naming the tab, row and column and what
    the cell holds; the host is kept with its other values (a host name that is an error leaves
    its row out), and every other row is read. The sheet was refused as unreadable."""
    rows = [("Host", "Cluster", "# Cores", "# Memory")]
    rows += [(f"esx{i}", "c", 8, 1024) for i in range(1, 6)]
    data = saved_as(xlsx({"vHost": rows}), "vHost", _UNREADABLE)
    read = read_rvtools(data, "x.xlsx")
    assert [(p.file, p.row, p.column) for p in read.problems] == [
        ("x.xlsx [vHost]", 2, "# Cores"),
        ("x.xlsx [vHost]", 2, "# Memory"),
        ("x.xlsx [vHost]", 3, "# Cores"),
        ("x.xlsx [vHost]", 3, "# Memory"),
        ("x.xlsx [vHost]", 4, "Cluster"),
        ("x.xlsx [vHost]", 4, "# Cores"),
        ("x.xlsx [vHost]", 5, "Host"),
    ]
    said = [p.message for p in read.problems]
    assert said[0].startswith("the core count cell holds 'inf', a number cell holding no finite")
    assert said[3].startswith("the memory cell holds the error value #DIV/0! (a formula that")
    assert "the error value #REF!" in said[4]
    assert "host 'esx3' is read without a cluster" in said[4]
    assert (
        said[6]
        == "the host name cell holds the error value #N/A (a formula that failed): row left out"
    )
    assert [h.name for h in read.hosts] == ["esx1", "esx2", "esx3", "esx5"]
    assert "cluster" not in _values(read.hosts[2])
    assert _values(read.hosts[2])["ram_gib"] == 1.0
    assert _values(read.hosts[3]) == {
        "platform": "vsphere",
        "cluster": "c",
        "cpu_cores": 8.0,
        "ram_gib": 1.0,
    }


def test_workbook_without_vhost_is_refused() -> None:
    """A workbook with no vHost tab is refused, listing its tabs and how to export them."""
    with pytest.raises(InputError, match="no vHost tab"):
        read_rvtools(xlsx({"vInfo": [("VM",), ("a",)]}), "x.xlsx")


def test_damaged_workbook_is_refused() -> None:
    """Bytes that are no workbook are an InputError, not openpyxl's exception."""
    with pytest.raises(InputError, match="not a readable Excel workbook"):
        read_rvtools(b"PK\x03\x04 broken", "x.xlsx")


def test_text_numbers_with_commas_are_read_only_as_thousands() -> None:
    """A memory typed as text with thousands commas ('261,797') reads as that number; a decimal
    comma ('1,5') is a problem naming the cell, not 15 MiB."""
    data = xlsx(
        {
            "vHost": [
                ["Host", "Cluster", "# Cores", "# Memory"],
                ["esx-01", "prod", 32, "262,144"],
                ["esx-02", "prod", 32, "1,5"],
            ]
        }
    )
    read = read_rvtools(data, "rv.xlsx")
    first, second = read.hosts
    assert _values(first)["ram_gib"] == 256.0
    assert "ram_gib" not in _values(second)
    (problem,) = read.problems
    assert (problem.row, problem.column) == (3, "# Memory")


_VHOST = [
    ("Host", "Datacenter", "Cluster", "Config status", "CPU Model", "# CPU", "Cores per CPU",
     "# Cores", "# Memory", "ESX Version"),
    ("esx1.lab", "dc", "gpu", "green", "Xeon Gold 6430", 2, 32, 64, 1048576, "VMware ESXi 8.0"),
    ("esx2.lab", "dc", "gpu", "green", "Xeon Gold 6430", 2, 32, "", 524288, "VMware ESXi 8.0"),
]  # fmt: skip


def _csv(rows: Sequence[Sequence[object]], separator: str) -> bytes:
    return "\n".join(separator.join(str(v) for v in row) for row in rows).encode()


@pytest.mark.parametrize("separator", [",", ";", "\t"])
def test_the_vhost_tab_exported_as_csv_reads_like_the_workbook(separator: str) -> None:
    """RVTools' vHost tab exported as CSV (ExportAll2csv writes one file per tab, separated as
    the locale has it) gives the hosts the workbook gives, an empty core count a problem naming
    its row and column as there, and is told apart from other CSVs by its header; it was
    refused as a file no tool wrote."""
    workbook = read_rvtools(xlsx({"vHost": _VHOST}), "rvtools.xlsx")
    data = _csv(_VHOST, separator)

    exported = read_rvtools(data, "RVTools_tabvHost.csv")

    assert detect_format("RVTools_tabvHost.csv", data) is Format.RVTOOLS
    assert [_values(h) for h in exported.hosts] == [_values(h) for h in workbook.hosts]
    assert [h.line for h in exported.hosts] == [2, 3]
    assert (
        [(p.row, p.column, p.message) for p in exported.problems]
        == [(p.row, p.column, p.message) for p in workbook.problems]
        == [(3, "# Cores", f"the core count cell is empty: {_KEPT_CORES}")]
    )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_real_vhost_tab_saved_as_csv_around_its_header_reads_as_the_workbook(
    layout: str,
) -> None:
    """The vHost tab of the RVTools 4 sample saved as CSV by a spreadsheet (semicolons below
    Excel's sep=; line, blank lines above or below that line, tabs, a byte-order mark) is
    detected as RVTools and gives the workbook's hosts, each row numbered below the header as
    the lines above it count. The sep= line was read as the header ('no Host column'), and a
    blank line or a blank row of commas above a semicolon header made the file read on
    commas."""
    name, data = sample(RVTOOLS)
    sheet = load_workbook(io.BytesIO(data), read_only=True)["vHost"]
    rows = [["" if v is None else str(v) for v in row] for row in sheet.iter_rows(values_only=True)]
    workbook = read_rvtools(data, name)
    laid = LAYOUTS[layout]
    exported = laid.write(rows)

    read = read_rvtools(exported, "RVTools_tabvHost.csv")

    assert detect_format("RVTools_tabvHost.csv", exported) is Format.RVTOOLS
    assert len(read.hosts) == 7
    assert [(h.name, _values(h)) for h in read.hosts] == [
        (h.name, _values(h)) for h in workbook.hosts
    ]
    assert [h.line for h in read.hosts] == [h.line + laid.header_row - 1 for h in workbook.hosts]
    assert read.problems == workbook.problems == ()


_VHOST_HEADER = "Host;Cluster;# CPU;Cores per CPU;# Cores;# Memory\nesx1;gpu;2;32;64;1048576\n"


@pytest.mark.parametrize(
    ("row", "message", "fix"),
    [
        (
            'esx2;"gpu;2;32;64;1048576\n' + "x" * 140_000 + "\n",
            "a cell starting on this row is longer than 131,072 characters, the CSV limit",
            'close the quote (") opened on this row',
        ),
        (
            "esx2;gpu;2;32;64;" + "9" * 140_000 + "\n",
            "a cell on this row is longer than 131,072 characters, the CSV limit: the row is "
            "one line that long, not a quote left open",
            "shorten the cell or delete it",
        ),
    ],
    ids=["a quote left open", "a line that long"],
)
def test_a_vhost_csv_cell_over_the_field_limit_is_refused_naming_its_row(
    row: str, message: str, fix: str
) -> None:
    """A vHost CSV below Excel's sep=; line whose row 4 holds a cell over Python's CSV field
    limit is refused naming the tab and that row, as a quote left open or as a line that long:
    the reader raised Python's csv.Error, which named neither."""
    data = ("sep=;\n" + _VHOST_HEADER + row).encode()
    with pytest.raises(InputError) as caught:
        read_rvtools(data, "RVTools_tabvHost.csv")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == ("RVTools_tabvHost.csv [vHost]", 4)
    assert problem.message == message
    assert problem.fix.startswith(fix)


@pytest.mark.parametrize("separator", [";", "\t"])
def test_a_semicolon_or_tab_vhost_csv_reads_numbers_by_the_locale_rules(separator: str) -> None:
    """In a vHost CSV separated by semicolons or tabs (a locale whose decimal mark is a comma),
    a number is read as the inventory CSV reads it: '1.048.576' MiB is 1,024 GiB, and
    '524.288' MiB (524,288 or 524.288) is a problem naming its row and column; it was read as
    0.512 GiB, and '1.048.576' was refused."""
    rows = [
        ("Host", "Cluster", "# CPU", "Cores per CPU", "# Cores", "# Memory"),
        ("esx1.lab", "gpu", 2, 32, 64, "1.048.576"),
        ("esx2.lab", "gpu", 2, 32, 64, "524.288"),
    ]

    read = read_rvtools(_csv(rows, separator), "RVTools_tabvHost.csv")

    first, second = read.hosts
    assert _values(first)["ram_gib"] == 1024.0
    assert "ram_gib" not in _values(second)
    (problem,) = read.problems
    assert (problem.row, problem.column) == (3, "# Memory")
    assert "'524.288' could be 524.288 or 524288" in problem.message
    assert "write 524288" in problem.fix


def test_a_vhost_tab_without_core_or_memory_columns_says_so() -> None:
    """A vHost tab with only # CPU (no cores per CPU) and no memory column gives each missing
    figure one problem on the header row naming the column RVTools writes; hosts are still
    read, without those figures."""
    data = xlsx({"vHost": [("Host", "Cluster", "# CPU"), ("esx3", "c", 2)]})
    read = read_rvtools(data, "v.xlsx")
    (host,) = read.hosts
    assert "cpu_cores" not in _values(host)
    assert [(p.row, p.message.split(" (")[0]) for p in read.problems] == [
        (1, "no cores column in the header"),
        (1, "no memory column in the header"),
    ]
    assert "# Cores" in read.problems[0].message
    assert "ram_gib" in read.problems[1].fix


def test_an_unreadable_core_or_memory_cell_names_its_value_and_the_assumed_figure() -> None:
    """A '# Cores' or '# Memory' cell that is there but unreadable is a problem naming the row,
    the column and the value, saying the host is kept with the figure the import assumes (as a
    node whose capacity kubectl gives unreadably is), not read from the cell. It said only that
    the figure was no number, and the host was planned with 64 cores or 512 GiB as if RVTools
    had no such column."""
    data = xlsx(
        {
            "vHost": [
                ("Host", "Cluster", "# Cores", "# Memory"),
                ("esx1", "gpu", "many", 524288),
                ("esx2", "gpu", 32, "lots"),
                ("esx3", "gpu", -4, 0),
            ]
        }
    )
    read = read_rvtools(data, "rv.xlsx")
    assert [(p.row, p.column, p.message) for p in read.problems] == [
        (2, "# Cores", f"'many' is not a core count above 0: {_KEPT_CORES}"),
        (3, "# Memory", f"'lots' is not a memory above 0 [MiB]: {_KEPT_MEMORY}"),
        (4, "# Cores", f"'-4' is not a core count above 0: {_KEPT_CORES}"),
        (4, "# Memory", f"'0' is not a memory above 0 [MiB]: {_KEPT_MEMORY}"),
    ]
    assert "or set cpu_cores for this host" in read.problems[0].fix
    assert [h.name for h in read.hosts] == ["esx1", "esx2", "esx3"]
    assert "cpu_cores" not in _values(read.hosts[0])
    assert "ram_gib" not in _values(read.hosts[1])


def test_an_unreadable_cpu_or_cores_per_cpu_cell_is_a_problem_not_a_silent_gap() -> None:
    """Without a '# Cores' column the cores are '# CPU' x 'Cores per CPU': a cell of either that
    is not a number is a problem naming it, the host kept with the assumed core count; it left
    the host's cores out in silence."""
    data = xlsx(
        {"vHost": [("Host", "# CPU", "Cores per CPU", "# Memory"), ("esx1", "two", 32, 1024)]}
    )
    read = read_rvtools(data, "rv.xlsx")
    (problem,) = read.problems
    assert (problem.row, problem.column, problem.message) == (
        2,
        "# CPU",
        f"'two' is not a socket count above 0: {_KEPT_CORES}",
    )
    assert "cpu_cores" not in _values(read.hosts[0])


def test_a_host_name_with_an_invisible_character_is_read_without_it_and_said() -> None:
    """A vHost host name holding a zero-width space is read without it (matched by what it
    shows), a problem on its row quoting it escaped; a name of invisible characters only
    leaves its row out."""
    data = xlsx(
        {
            "vHost": [
                ("Host", "Cluster", "# Cores", "# Memory"),
                ("esx\u200b1", "c", 8, 1024),
                ("\u200b", "c", 8, 1024),
            ]
        }
    )
    read = read_rvtools(data, "x.xlsx")
    assert [h.name for h in read.hosts] == ["esx1"]
    first, second = read.problems
    assert (first.row, first.column, second.row) == (2, "Host", 3)
    assert "'esx\\u200b1'" in first.message
    assert first.message.endswith("read as 'esx1'")
    assert "only invisible characters: row left out" in second.message


def test_cluster_names_lose_invisible_characters_as_host_names_do() -> None:
    """A vHost cluster holding a zero-width space is read without it, a problem on its row
    quoting it; vInfo's host and cluster names are read so too, so a host matches its VMs."""
    data = xlsx(
        {
            "vHost": [
                ("Host", "Cluster", "# Cores", "# Memory"),
                ("esx1", "prod\u200b", 8, 1024),
            ]
        }
    )
    read = read_rvtools(data, "x.xlsx")
    (host,) = read.hosts
    assert _values(host)["cluster"] == "prod"
    (problem,) = read.problems
    assert (problem.row, problem.column) == (2, "Cluster")
    assert problem.message.endswith("read as 'prod'")
    data = xlsx(
        {
            "vInfo": [("VM", "Host", "Cluster"), ("vm-1", "esx3\u200b", "\ufeffprod")],
            "vHost": [("Host", "# Cores", "# Memory"), ("esx3", 16, 131072)],
        }
    )
    (host,) = read_rvtools(data, "x.xlsx").hosts
    assert _values(host)["cluster"] == "prod"


def test_a_number_too_large_for_a_float_is_named_as_no_finite_number() -> None:
    """A number cell saved as ``1E400`` reads as inf without failing openpyxl's parser: it is
    named as a number cell holding no finite number, as ``inf`` is."""
    rows = [("Host", "Cluster", "# Cores", "# Memory"), ("esx1", "c", 8, 1024)]
    data = saved_as(xlsx({"vHost": rows}), "vHost", {"C2": ("n", "1E400")})
    read = read_rvtools(data, "x.xlsx")
    (problem,) = read.problems
    assert (problem.row, problem.column) == (2, "# Cores")
    assert problem.message.startswith(
        "the core count cell holds '1E400', a number cell holding no finite"
    )


def test_a_host_memory_under_1_gib_is_a_problem_saying_what_it_likely_means() -> None:
    """A host's memory that reads under 1 GiB is no host's: '261.797' in the MiB column (a
    point between thousands, as a European locale writes 261,797) is a problem naming the row,
    the column, the value, its likely meaning and how to export it; a plain '512' says RVTools
    gives MiB. The host is kept without that figure; 1024 MiB (1 GiB) is read. It was planned
    as a host of 0.26 GiB."""
    data = xlsx(
        {
            "vHost": [
                ("Host", "Cluster", "# Cores", "# Memory"),
                ("esx1", "c", 8, "261.797"),
                ("esx2", "c", 8, 261.797),
                ("esx3", "c", 8, 512),
                ("esx4", "c", 8, 1024),
            ]
        }
    )
    read = read_rvtools(data, "rv.xlsx")
    assert [(p.row, p.column) for p in read.problems] == [
        (2, "# Memory"),
        (3, "# Memory"),
        (4, "# Memory"),
    ]
    first, _, third = read.problems
    assert first.message == (
        "'261.797' is 261.797 MiB (0.26 GiB), too little for a host (under 1 GiB): most likely "
        f"261,797 MiB, written with a point between thousands: {_KEPT_MEMORY}"
    )
    assert "plain numbers, without thousands separators (261797)" in first.fix
    assert "RVTools gives memory in MiB" in third.message
    assert [("ram_gib" in _values(h)) for h in read.hosts] == [False, False, False, True]


def test_a_memory_with_thousands_points_in_a_comma_separated_csv_is_a_problem() -> None:
    """In a comma-separated vHost CSV, '261.797' reads as a decimal: under 1 GiB, it is the
    same problem as in the workbook, not a host of 0.26 GiB."""
    rows = [("Host", "Cluster", "# Cores", "# Memory"), ("esx1", "c", 8, "261.797")]
    read = read_rvtools(_csv(rows, ","), "RVTools_tabvHost.csv")
    (problem,) = read.problems
    assert (problem.row, problem.column) == (2, "# Memory")
    assert "most likely 261,797 MiB" in problem.message
    assert "ram_gib" not in _values(read.hosts[0])


def test_the_figure_assumed_for_an_unusable_cell_names_the_cell_in_its_note() -> None:
    """The note of a core count or memory assumed in place of a cell that cannot be used names
    the cell's row and column, what it holds and the figure assumed, pointing at the cell; it
    said the figure was not in the RVTools export, as if the column were missing. A host
    whose cells are read has no such note."""
    rows = [
        ("Host", "Cluster", "# Cores", "# Memory"),
        ("esx1", "gpu", 8, 1024),
        ("esx2", "gpu", "many", 1024),
        ("esx3", "gpu", 8, 2048),
    ]
    data = saved_as(xlsx({"vHost": rows}), "vHost", {"D2": ("e", "#DIV/0!")})
    imported = import_inventory([("rv.xlsx", data)], CATALOG, gpus_by_cluster={"gpu": ("L4", 2)})
    assumed = {(n.subject, n.field): n for n in imported.notes if n.source == "assumed"}
    memory = assumed["esx1", "ram_gib"]
    assert (memory.file, memory.line, memory.locator, memory.value) == (
        "rv.xlsx [vHost]",
        2,
        "# Memory",
        "512",
    )
    assert memory.text == (
        "row 2, # Memory: the memory cell holds the error value #DIV/0! (a formula that "
        "failed); assumed 512 GiB: correct the cell, or set ram_gib for this host"
    )
    cores = assumed["esx2", "cpu_cores"]
    assert (cores.line, cores.locator) == (3, "# Cores")
    assert cores.text.startswith(
        "row 3, # Cores: 'many' is not a core count above 0; assumed 64 cores"
    )
    assert ("esx3", "cpu_cores") not in assumed
    assert ("esx3", "ram_gib") not in assumed


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_blank_rows_above_the_vhost_header_do_not_end_the_tab(kind: str) -> None:
    """A vHost tab whose header stands below 60 blank rows is read, its host on its row: blank
    rows above the header do not end the tab."""
    blank = 60
    rows = [
        ("Host", "Cluster", "# CPU", "Cores per CPU", "# Cores", "# Memory"),
        ("esx1.lab", "gpu", 2, 32, 64, 1048576),
    ]
    data = (
        b"\n" * blank + _csv(rows, ",") if kind == "csv" else xlsx({"vHost": [()] * blank + rows})
    )
    (host,) = read_rvtools(data, f"RVTools_tabvHost.{kind}").hosts
    assert host.line == blank + 2
    assert _values(host)["cpu_cores"] == 64.0


def test_a_vhost_csv_header_over_the_field_limit_names_the_tab_and_the_tool_s_fix() -> None:
    """A header cell over the CSV field limit is named in the vHost tab, as a row's is; it
    named the bare file."""
    data = ("Host;" + "x" * 140_000 + "\nesx1;1\n").encode()
    with pytest.raises(InputError) as caught:
        read_rvtools(data, "RVTools_tabvHost.csv")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == ("RVTools_tabvHost.csv [vHost]", 1)


def test_a_vhost_tab_with_a_row_past_excel_s_last_is_refused_naming_it() -> None:
    """A small workbook whose only filled row is numbered past Excel's 1,048,576 rows is
    refused naming that row, not read by passing over every blank row up to it (at row
    50,000,000, seconds of one upload)."""
    data = with_row_moved(xlsx({"vHost": [(), (), ("Host",)]}), 3, 50_000_000)
    with pytest.raises(InputError) as caught:
        read_rvtools(data, "rv.xlsx")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == ("rv.xlsx [vHost]", 50_000_000)
    assert problem.message == (
        "row 50,000,000 is past Excel's last row (1,048,576): no spreadsheet writes one"
    )


_HOST_ROWS = [
    ("Host", "Cluster", "# CPU", "Cores per CPU", "# Cores", "# Memory"),
    ("esx1.lab", "prod", 2, 24, 48, 524288),
    ("esx2.lab", "prod", 2, 24, 48, 524288),
]


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_a_host_below_a_run_of_blank_rows_is_read_on_its_row(kind: str) -> None:
    """Blank rows between hosts are passed over however many: esx3 below 60 blank rows is
    read on its row (64); it was dropped without a word after 50 blank rows."""
    rows = [*_HOST_ROWS, *[()] * 60, ("esx3.lab", "prod", 2, 24, 48, 524288)]
    data = _csv(rows, ",") if kind == "csv" else xlsx({"vHost": rows})
    read = read_rvtools(data, f"RVTools_tabvHost.{kind}")
    assert [(h.name, h.line) for h in read.hosts] == [
        ("esx1.lab", 2),
        ("esx2.lab", 3),
        ("esx3.lab", 64),
    ]
    assert read.problems == ()


def test_a_host_on_excel_s_last_row_is_read() -> None:
    """A host on row 1,048,576, Excel's last, is read on its row, the blank rows above it
    passed over."""
    rows = [*_HOST_ROWS, ("esx3.lab", "prod", 2, 24, 48, 524288)]
    data = with_row_moved(xlsx({"vHost": rows}), 4, 1_048_576)
    read = read_rvtools(data, "rv.xlsx")
    assert [(h.name, h.line) for h in read.hosts][-1] == ("esx3.lab", 1_048_576)


def test_a_vm_below_a_run_of_blank_rows_in_vinfo_gives_its_host_s_cluster() -> None:
    """vInfo is read to its end as vHost is: a VM below 60 blank rows gives its host's
    cluster."""
    data = xlsx(
        {
            "vInfo": [("VM", "Host", "Cluster"), *[()] * 60, ("vm1", "esx1.lab", "prod")],
            "vHost": [("Host", "# Cores", "# Memory"), ("esx1.lab", 48, 524288)],
        }
    )
    (host,) = read_rvtools(data, "rv.xlsx").hosts
    assert _values(host)["cluster"] == "prod"


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_a_column_read_that_appears_twice_is_refused_naming_both(kind: str) -> None:
    """Two ``# Cores`` columns in vHost are refused, as the planner's CSVs refuse a repeated
    column, naming the header row and both columns: which one holds the host's cores is not
    known (the first was read and the second ignored without a word)."""
    rows = [
        ("Host", "Cluster", "# Cores", "# Memory", "# Cores"),
        ("esx1.lab", "prod", 48, 524288, 96),
    ]
    data = _csv(rows, ",") if kind == "csv" else xlsx({"vHost": rows})
    with pytest.raises(InputError) as caught:
        read_rvtools(data, f"RVTools_tabvHost.{kind}")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row, problem.column) == (
        f"RVTools_tabvHost.{kind} [vHost]",
        1,
        "# Cores",
    )
    assert problem.message == "column '# Cores' appears twice (columns C and E)"
    assert problem.fix == "keep one column of that name"


def test_a_column_not_read_may_appear_twice() -> None:
    """A column the planner does not read may appear twice (a custom attribute named as
    another): the hosts are read."""
    rows = [("Host", "# Cores", "# Memory", "Owner", "Owner"), ("esx1.lab", 48, 524288, "a", "b")]
    (host,) = read_rvtools(xlsx({"vHost": rows}), "rv.xlsx").hosts
    assert _values(host)["cpu_cores"] == 48.0


def test_a_vinfo_cluster_column_that_appears_twice_is_refused() -> None:
    """vInfo's Cluster column twice, read for a vHost tab without clusters, is refused naming
    vInfo's header row and both columns."""
    data = xlsx(
        {
            "vInfo": [("VM", "Host", "Cluster", "Cluster"), ("vm1", "esx1.lab", "a", "b")],
            "vHost": [("Host", "# Cores", "# Memory"), ("esx1.lab", 48, 524288)],
        }
    )
    with pytest.raises(InputError) as caught:
        read_rvtools(data, "rv.xlsx")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row, problem.column) == ("rv.xlsx [vInfo]", 1, "Cluster")
    assert problem.message == "column 'Cluster' appears twice (columns C and D)"


def test_a_later_header_repeating_a_column_is_refused_on_its_row() -> None:
    """A second header (exports joined) whose columns are read anew is refused on its own row
    when it repeats a column read."""
    rows = [
        ("Host", "# Cores", "# Memory"),
        ("esx1.lab", 48, 524288),
        ("Host", "Cluster", "# Memory", "# Memory"),
        ("esx2.lab", "b", 524288, 1048576),
    ]
    with pytest.raises(InputError) as caught:
        read_rvtools(xlsx({"vHost": rows}), "rv.xlsx")
    (problem,) = caught.value.problems
    assert (problem.row, problem.column) == (3, "# Memory")


def test_problems_say_whether_their_row_is_kept() -> None:
    """A host read with an assumed core count, or with its name's invisible character removed,
    is a problem on a row kept; a host row without a name is a problem on a row left out, the
    only row a summary counts skipped."""
    rows = [
        ("Host", "Cluster", "# Cores", "# Memory"),
        ("esx1.lab", "prod", "many", 524288),
        ("esx2\u200b.lab", "prod", 48, 524288),
        ("", "prod", 48, 524288),
    ]
    read = read_rvtools(xlsx({"vHost": rows}), "rv.xlsx")
    assert [h.name for h in read.hosts] == ["esx1.lab", "esx2.lab"]
    assert [(p.row, p.row_kept) for p in read.problems] == [(2, True), (3, True), (4, False)]
    assert skipped_summary(read.problems) == "1 row skipped in rv.xlsx [vHost], 2 other problems"


_PARIS = (
    "Host,Datacenter,Cluster,# CPU,Cores per CPU,# Cores,# Memory,VI SDK Server\n"
    "esx01.site1.corp,DC-Paris,GPU-Cluster,2,28,56,1048022,vc-paris.corp\n"
    "esx02.site1.corp,DC-Paris,GPU-Cluster,2,28,56,1048022,vc-paris.corp\n"
)
_BERLIN = (
    "Host,Datacenter,Cluster,# CPU,Cores per CPU,# Cores,# Memory,VI SDK Server\n"
    "esx01.site2.corp,DC-Berlin,GPU-Cluster,2,32,64,2096044,vc-berlin.corp\n"
)


def test_clusters_of_one_name_in_two_vcenters_are_kept_apart_named_after_their_vcenter() -> None:
    """If two vCenters' vHost tabs (vc-paris.corp, vc-berlin.corp) each have a cluster named
    GPU-Cluster, the clusters are two, named after their vCenter (vc-paris.corp/GPU-Cluster),
    each host's cluster note saying why; GPUs given for GPU-Cluster go to both, and for
    vc-berlin.corp/GPU-Cluster to that one only. They were merged into one cluster."""
    files = [("paris.csv", _PARIS.encode()), ("berlin.csv", _BERLIN.encode())]
    imported = import_inventory(files, CATALOG, gpus_by_cluster={"GPU-Cluster": ("L40S", 4)})
    clusters = dict(zip(imported.frame["host"], imported.frame["cluster"], strict=True))
    assert clusters == {
        "esx01.site1.corp": "vc-paris.corp/GPU-Cluster",
        "esx02.site1.corp": "vc-paris.corp/GPU-Cluster",
        "esx01.site2.corp": "vc-berlin.corp/GPU-Cluster",
    }
    assert imported.frame["gpus_per_host"].tolist() == [4, 4, 4]
    assert imported.problems == ()
    (note,) = [
        n for n in imported.notes if n.subject == "esx01.site2.corp" and n.field == "cluster"
    ]
    assert "also in vc-paris.corp" in note.text
    assert "kept apart" in note.text
    one = import_inventory(
        files, CATALOG, gpus_by_cluster={"vc-berlin.corp/GPU-Cluster": ("L40S", 4)}
    )
    assert one.frame["host"].tolist() == ["esx01.site2.corp"]


def test_clusters_of_one_name_in_one_vcenter_are_told_apart_by_datacenter_and_alone_kept() -> None:
    """If one vCenter holds GPU-Cluster in two datacenters, they are named after their
    datacenter (DC-Berlin/GPU-Cluster); a cluster name found in one site only keeps its name."""
    one_vcenter = _BERLIN.replace("esx01.site2.corp,DC-Berlin", "esx09.site2.corp,DC-Rome")
    files = [("berlin.csv", _BERLIN.encode()), ("rome.csv", one_vcenter.encode())]
    imported = import_inventory(files, CATALOG, gpus_by_cluster={"GPU-Cluster": ("L40S", 4)})
    assert sorted(imported.frame["cluster"]) == ["DC-Berlin/GPU-Cluster", "DC-Rome/GPU-Cluster"]
    alone = import_inventory(
        [("paris.csv", _PARIS.encode())], CATALOG, gpus_by_cluster={"GPU-Cluster": ("L40S", 4)}
    )
    assert set(alone.frame["cluster"]) == {"GPU-Cluster"}


def test_one_vcenter_spelled_in_two_cases_is_one_vcenter() -> None:
    """If two exports of one vCenter spell its DNS name in two cases (VC-Paris.corp and
    vc-paris.corp), its clusters are one site: GPU-Cluster keeps its name and is not split
    in two named after each spelling."""
    upper = _PARIS.replace("esx02.site1.corp", "esx03.site1.corp").replace(
        "vc-paris.corp", "VC-Paris.corp"
    )
    files = [("paris.csv", _PARIS.encode()), ("paris-again.csv", upper.encode())]
    imported = import_inventory(files, CATALOG, gpus_by_cluster={"GPU-Cluster": ("L40S", 4)})
    assert set(imported.frame["cluster"]) == {"GPU-Cluster"}
    assert len(imported.frame) == 3
    # Two vCenters still differ whatever their case.
    berlin = _BERLIN.replace("vc-berlin.corp", "VC-BERLIN.corp")
    two = import_inventory(
        [("paris.csv", _PARIS.encode()), ("berlin.csv", berlin.encode())],
        CATALOG,
        gpus_by_cluster={"GPU-Cluster": ("L40S", 4)},
    )
    assert "VC-BERLIN.corp/GPU-Cluster" in set(two.frame["cluster"])
