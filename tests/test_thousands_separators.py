"""Numbers whose thousands a locale's Excel separates with a space or an apostrophe
(``1 024``, ``1'024``): refused naming the number they read as and the separator to drop."""

from __future__ import annotations

import pytest

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.inventory import load_inventory
from planner.inputs.problems import InputError
from planner.inputs.workloads import REQUIRED_WORKLOAD_COLUMNS, load_workloads

INVENTORY_HEADER = "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(
    ("ram", "mark"),
    [
        ("1\u00a0024", "a no-break space"),
        ("1\u202f024", "a narrow no-break space"),
        ("1 024", "a space"),
        ("1'024", "an apostrophe"),
    ],
)
def test_a_grouped_number_is_refused_naming_its_number_and_separator(
    catalog: Catalog, ram: str, mark: str
) -> None:
    """French and Swiss Excel write 1024 as ``1 024`` (no-break, narrow or plain space) or
    ``1'024``: the cell is refused saying it is 1024 with a thousands separator, which one,
    and to write 1024; the row is listed, the other rows load."""
    data = "\n".join(
        [
            INVENTORY_HEADER.replace(",", ";"),
            f"gpu-a;ml;L40S;4;64;{ram};25;no",
            "gpu-b;ml;L40S;4;64;512;25;no",
        ]
    ).encode()
    loaded = load_inventory(data, catalog, file_name="inv.csv")
    assert [h.name for h in loaded.value.hosts] == ["gpu-b"]
    (problem,) = loaded.problems
    assert (problem.file, problem.row, problem.column) == ("inv.csv", 2, "ram_gib")
    assert problem.message == (
        f"'{ram}' is 1024 written with thousands separated by {mark}: a number cell takes no "
        "thousands separator"
    )
    assert problem.fix.startswith("write 1024;")
    assert "Use 1000 Separator" in problem.fix


def test_a_grouped_number_with_decimals_is_written_with_the_files_decimal_mark(
    catalog: Catalog,
) -> None:
    """``1 024,5`` is 1024.5: a semicolon-separated file is told to write 1024,5 (its decimal
    comma is read), a comma-separated one 1024.5."""
    semicolons = "\n".join(
        [INVENTORY_HEADER.replace(",", ";"), "gpu-a;ml;L40S;4;64;1 024,5;25;no"]
    ).encode()
    with pytest.raises(InputError) as refused:
        load_inventory(semicolons, catalog, file_name="inv.csv")
    first = refused.value.problems[0]
    assert first.message.startswith("'1 024,5' is 1024.5 written with thousands")
    assert first.fix.startswith("write 1024,5;")
    commas = "\n".join([INVENTORY_HEADER, 'gpu-a,ml,L40S,4,64,"1 024,5",25,no']).encode()
    with pytest.raises(InputError) as refused:
        load_inventory(commas, catalog, file_name="inv.csv")
    assert refused.value.problems[0].fix.startswith("write 1024.5;")


def test_a_grouped_number_with_the_columns_unit_is_refused_for_its_separator(
    catalog: Catalog,
) -> None:
    """``1 024 GiB`` is named for its thousands separator, not called a number with an
    unknown unit or no number."""
    data = "\n".join([INVENTORY_HEADER, "gpu-a,ml,L40S,4,64,1 024 GiB,25,no"]).encode()
    with pytest.raises(InputError) as refused:
        load_inventory(data, catalog, file_name="inv.csv")
    first = refused.value.problems[0]
    assert first.message == (
        "'1 024' is 1024 written with thousands separated by a space: a number cell takes no "
        "thousands separator (written '1 024 GiB')"
    )


def test_a_grouped_instance_count_and_percentage_are_refused_in_a_workload_file(
    catalog: Catalog,
) -> None:
    """A workload file's counts are read alike: ``1 200`` instances is 1200 with a no-break
    space, ``1'000 %`` a percentage with an apostrophe."""
    header = ";".join(REQUIRED_WORKLOAD_COLUMNS)
    rows = [
        "a;notebook;1\u00a0200;0,25;10;0,5;8;5;4;32;no;no;yes",
        "b;notebook;2;0,25;10;1'000 %;8;5;4;32;no;no;yes",
        "c;notebook;2;0,25;10;0,5;8;5;4;32;no;no;yes",
    ]
    loaded = load_workloads("\n".join([header, *rows]).encode(), catalog, file_name="wl.csv")
    assert [w.name for w in loaded.value] == ["c"]
    messages = {(p.row, p.column): p.message for p in loaded.problems}
    assert messages[(2, "instances")].startswith("'1\u00a0200' is 1200 written with thousands")
    assert messages[(3, "busy_fraction")].startswith("'1'000 %' is 1000% written with thousands")


def test_numbers_without_a_grouping_mark_are_read_as_before(catalog: Catalog) -> None:
    """A plain number, a decimal comma in a semicolon file and a number with its unit read as
    they did: only a space or an apostrophe between groups of three digits is refused."""
    data = "\n".join(
        [INVENTORY_HEADER.replace(",", ";"), "gpu-a;ml;L40S;4;64;1024;2,5;no"]
    ).encode()
    loaded = load_inventory(data, catalog, file_name="inv.csv")
    assert not loaded.problems
    (host,) = loaded.value.hosts
    assert (host.ram_gib, host.network_gbps) == (1024.0, 2.5)
