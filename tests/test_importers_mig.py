"""Tests of MIG layouts from ``nvidia-smi mig -lgi`` and profiles from ``-lgip``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest
from importer_samples import CATALOG, KUBECTL_NODES, MIG_LGI, MIG_LGIP, sample

from planner.cli import main
from planner.inputs.importers.estate import import_inventory
from planner.inputs.importers.mig import (
    gpu_instances,
    offered_profiles,
    read_mig_instances,
    read_mig_profiles,
)
from planner.inputs.importers.text import tool_text
from planner.inputs.problems import InputError

H100_LGI = b"""\
$ sudo nvidia-smi mig -lgi
+----------------------------------------------------+
| GPU instances:                                     |
| GPU   Name          Profile  Instance   Placement  |
|                       ID       ID       Start:Size |
|====================================================|
|   0  MIG 3g.40gb       9        2          4:4     |
+----------------------------------------------------+
|   0  MIG 1g.10gb      19        9          2:1     |
+----------------------------------------------------+
|   1  MIG 7g.80gb       0        0          0:8     |
+----------------------------------------------------+

"""

# seansiddens/mps-test, README.md lines 19-27 @ 1b6991a0: an A100 40GB split into two 3g.20gb.
A100_40GB_LGI = b"""\
$ sudo nvidia-smi mig -lgi
+----------------------------------------------------+
| GPU instances:                                     |
| GPU   Name          Profile  Instance   Placement  |
|                       ID       ID       Start:Size |
|====================================================|
|   0  MIG 3g.20gb       9        1          4:4     |
+----------------------------------------------------+
|   0  MIG 3g.20gb       9        2          0:4     |
+----------------------------------------------------+
"""
A100_40GB_MODELS = "A100-40GB-PCIe, A100-40GB-SXM"


def test_a30_lgi_sample_is_four_1g6gb_at_starts_0_to_3() -> None:
    """The A30's four 1g.6gb GPU instances sit at memory slices 0, 1, 2 and 3; only the A30
    offers 1g.6gb, so the model is derived; MIG is on."""
    name, data = sample(MIG_LGI)
    read = read_mig_instances(data, name, CATALOG)
    (host,) = read.hosts
    (gpu,) = host.mig_layout
    assert [(i.profile, i.start) for i in gpu.instances] == [("1g.6gb", s) for s in range(4)]
    values = {f.field: (f.value, f.source) for f in host.facts}
    assert values["gpu_model"] == ("A30", "derived")
    assert values["mig_enabled"] == ("yes", "derived")
    assert values["gpus_per_host"] == (1, "assumed")


def test_lgi_rows_keep_ids_and_sizes() -> None:
    """Each row's GPU, profile id, instance id, start and size are read from the sample."""
    name, data = sample(MIG_LGI)
    rows, problems = gpu_instances(tool_text(data, name))
    assert problems == []
    assert [(r.gpu, r.profile_id, r.instance_id, r.start, r.size) for r in rows] == [
        (0, 14, 3, 0, 1),
        (0, 14, 4, 1, 1),
        (0, 14, 5, 2, 1),
        (0, 14, 6, 3, 1),
    ]


def test_lgi_layout_is_sorted_by_start_per_gpu_and_model_left_open_when_ambiguous() -> None:
    """Instances are listed per GPU by start slice; 1g.10gb, 3g.40gb and 7g.80gb exist on several
    80 GB models, so no model is guessed (another file gives it)."""
    (host,) = read_mig_instances(H100_LGI, "h.txt", CATALOG).hosts
    assert [
        (g.gpu_index, [(i.profile, i.start) for i in g.instances]) for g in host.mig_layout
    ] == [
        (0, [("1g.10gb", 2), ("3g.40gb", 4)]),
        (1, [("7g.80gb", 0)]),
    ]
    assert host.get("gpu_model") is None
    assert host.get("gpus_per_host") is not None


def test_gh200_lgip_sample_rows() -> None:
    """The GH200's profiles, two lines each: names with +me, ids, free/total, GiB and SMs."""
    name, data = sample(MIG_LGIP)
    rows, problems = offered_profiles(tool_text(data, name))
    assert problems == []
    assert [(r.profile, r.profile_id, r.free, r.total, r.memory_gib, r.sms) for r in rows] == [
        ("1g.12gb", 19, 7, 7, 11.0, 16),
        ("1g.12gb+me", 20, 1, 1, 11.0, 16),
        ("1g.24gb", 15, 4, 4, 23.0, 26),
        ("2g.24gb", 14, 3, 3, 23.0, 32),
        ("3g.48gb", 9, 2, 2, 46.5, 60),
        ("4g.48gb", 5, 1, 1, 46.5, 64),
        ("7g.96gb", 0, 1, 1, 93.0, 132),
    ]


def test_gh200_lgip_reads_as_the_catalog_s_gh200() -> None:
    """The GH200 and the H20 offer these profile names, but the 7g.96gb's 132 SMs are more than
    the H20's 78: the GH200 is the model, and the fact says why; MIG on, the profiles as notes."""
    name, data = sample(MIG_LGIP)
    read = read_mig_profiles(data, name, CATALOG)
    assert read.problems == ()
    (host,) = read.hosts
    facts = {f.field: f.value for f in host.facts}
    assert facts["gpu_model"] == "GH200-96GB"
    (model,) = (f for f in host.facts if f.field == "gpu_model")
    assert "7g.96gb has 132 SMs, more than a whole H20-96GB's 78" in model.note.text
    assert facts["mig_enabled"] == "yes"
    assert len(read.notes) == 7


def test_profiles_of_a_model_the_catalog_lacks_are_a_problem() -> None:
    """With the GH200 left out of the catalog no model offers its profiles with its SMs (the H20
    offers the names, but has 78 SMs, not 132): a problem says so with the own-GPU fix; the
    MIG-enabled GPU is still counted and the offered profiles are notes."""
    without = dataclasses.replace(
        CATALOG,
        gpus={k: v for k, v in CATALOG.gpus.items() if not k.startswith("GH200")},
        mig_profiles={k: v for k, v in CATALOG.mig_profiles.items() if not k.startswith("GH200")},
    )
    name, data = sample(MIG_LGIP)
    read = read_mig_profiles(data, name, without)
    (problem,) = read.problems
    assert "7g.96gb" in problem.message
    assert "93 GiB" in problem.message
    assert "offered by H20-96GB, but not with these SMs" in problem.message
    assert "your own GPU" in problem.fix
    (host,) = read.hosts
    assert host.get("gpu_model") is None
    assert {f.field: f.value for f in host.facts}["mig_enabled"] == "yes"
    assert len(read.notes) == 7


@pytest.mark.parametrize("reader", [read_mig_instances, read_mig_profiles])
def test_output_without_rows_is_refused(reader: Callable[..., object]) -> None:
    """A file without an instance or profile row is an InputError naming the command."""
    with pytest.raises(InputError, match="nvidia-smi mig"):
        reader(b"No MIG-enabled devices found.\n", "x.txt", CATALOG)


def test_lgi_alone_of_profiles_several_models_offer_names_them_and_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An A100 40GB's -lgi alone: 3g.20gb is offered by its PCIe and SXM parts, so the host is
    left out with a problem naming the file, its line, the host, both models and how to name
    one; the command line prints it and exits 2. Given the model per cluster, the host is kept."""
    (host,) = read_mig_instances(A100_40GB_LGI, "ana-01.txt", CATALOG).hosts
    assert host.get("gpu_model") is None
    assert host.open_model is not None
    assert host.open_model.models == ("A100-40GB-PCIe", "A100-40GB-SXM")
    with pytest.raises(InputError) as refused:
        import_inventory([("ana-01.txt", A100_40GB_LGI)], CATALOG)
    problem = refused.value.problems[0]
    assert (problem.file, problem.row, problem.column) == ("ana-01.txt", 7, "Name")
    assert problem.message == (
        "host ana-01: nvidia-smi mig -lgi does not name the GPU model, and MIG profiles 3g.20gb "
        f"are offered by 2 catalog models ({A100_40GB_MODELS}); none is guessed, so the host is "
        "left out"
    )
    for fix in ("nvidia-smi -L", "plain nvidia-smi", "--query-gpu", "'imported=MODEL:1'"):
        assert fix in problem.fix
    assert problem.fix.endswith(f"inventory CSV, MODEL being one of {A100_40GB_MODELS}")
    assert not any("no file gives the GPUs" in p.message for p in refused.value.problems)

    path = tmp_path / "ana-01.txt"
    path.write_bytes(A100_40GB_LGI)
    assert main(["plan", "--inventory", str(path), "--methods", "passthrough"]) == 2
    err = capsys.readouterr().err
    assert f"ana-01.txt, row 7, column 'Name': {problem.message}. Fix: {problem.fix}" in err

    given = import_inventory(
        [("ana-01.txt", A100_40GB_LGI)],
        CATALOG,
        gpus_by_cluster={"imported": ("A100-40GB-SXM", 1)},
    )
    assert list(given.frame["gpu_model"]) == ["A100-40GB-SXM"]
    assert given.problems == ()


def test_a_host_whose_model_is_open_is_a_problem_beside_the_hosts_imported() -> None:
    """Among files that give other hosts, the host whose -lgi fits several models is left out
    with its own problem (the import summary lists it), and the other hosts are imported."""
    imported = import_inventory([sample(KUBECTL_NODES), ("ana-01.txt", A100_40GB_LGI)], CATALOG)
    assert list(imported.frame["host"]) == ["nori"]
    (problem,) = [p for p in imported.problems if p.message.startswith("host ana-01:")]
    assert problem.message.startswith("host ana-01: nvidia-smi mig -lgi does not name")
    assert A100_40GB_MODELS in problem.message


def test_lgip_of_profiles_several_models_offer_leaves_the_model_open() -> None:
    """``-lgip`` listing the A100 40GB's profiles fits its PCIe and SXM parts: no model, both
    kept as the open model with the largest profile's memory."""
    # Two profile rows of an A100-PCIE-40GB's -lgip as a public Go test fixture holds it
    # (package gpuhelper, `nvidia-smi mig -i 00000000:01:00.0 -lgip`); the rows between are cut.
    lgip = b"""\
+-----------------------------------------------------------------------------+
| GPU instance profiles:                                                      |
| GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  |
|                              Free/Total   GiB              CE    JPEG  OFA  |
|=============================================================================|
|   0  MIG 1g.5gb        19     7/7        4.75       No     14     0     0   |
|                                                             1     0     0   |
+-----------------------------------------------------------------------------+
|   0  MIG 7g.40gb        0     1/1        39.50      No     98     5     0   |
|                                                             7     1     1   |
+-----------------------------------------------------------------------------+
"""
    read = read_mig_profiles(lgip, "ana-01.txt", CATALOG)
    assert read.problems == ()
    (host,) = read.hosts
    assert host.get("gpu_model") is None
    assert host.open_model is not None
    assert host.open_model.models == ("A100-40GB-PCIe", "A100-40GB-SXM")
    assert host.open_model.shows == "MIG profiles 1g.5gb, 7g.40gb (7g.40gb has 39.5 GiB)"


A100_80GB_LIST = b"GPU 0: NVIDIA A100-SXM4-80GB (UUID: a)\n"


def test_a_model_another_file_gives_outside_the_lgi_candidates_is_a_problem() -> None:
    """-lgi of an A100 40GB (3g.20gb: its PCIe or SXM part) and an -L of the host naming an
    A100 80GB: a problem on the -lgi's line names the host, the model given and its file, the
    candidates and the fix; the model read is kept."""
    imported = import_inventory(
        [("ana-01.txt", A100_40GB_LGI), ("ana-01.log", A100_80GB_LIST)], CATALOG
    )
    assert list(imported.frame["gpu_model"]) == ["A100-80GB-SXM"]
    (problem,) = imported.problems
    assert (problem.file, problem.row, problem.column) == ("ana-01.txt", 7, "Name")
    assert problem.message == (
        "host ana-01: nvidia-smi mig -lgi shows MIG profiles 3g.20gb, which 2 catalog models "
        f"offer ({A100_40GB_MODELS}), not A100-80GB-SXM from ana-01.log (nvidia-smi -L); "
        "A100-80GB-SXM is kept"
    )
    assert problem.fix.startswith(
        f"correct the model where it is given to one of {A100_40GB_MODELS}"
    )


def test_a_model_typed_for_the_cluster_outside_the_lgi_candidates_is_a_problem() -> None:
    """The model typed for the host's cluster (--cluster-gpus) that the -lgi's profiles rule
    out is a problem naming the typed GPUs and the candidates; one of the candidates typed is
    none."""
    typed = import_inventory(
        [("ana-01.txt", A100_40GB_LGI)],
        CATALOG,
        gpus_by_cluster={"imported": ("H100-80GB-SXM", 1)},
    )
    (problem,) = typed.problems
    assert problem.file == "ana-01.txt"
    assert "not H100-80GB-SXM from the GPUs given for cluster imported" in problem.message
    assert A100_40GB_MODELS in problem.message
    candidate = import_inventory(
        [("ana-01.txt", A100_40GB_LGI)],
        CATALOG,
        gpus_by_cluster={"imported": ("A100-40GB-PCIe", 1)},
    )
    assert candidate.problems == ()


def test_lgip_candidates_are_checked_against_the_model_given_too() -> None:
    """-lgip narrowing the model to the A100 40GB parts, with an -L naming an L4 (no MIG at
    all): the same problem, from the -lgip's line."""
    lgip = b"""\
+-----------------------------------------------------------------------------+
| GPU instance profiles:                                                      |
| GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  |
|                              Free/Total   GiB              CE    JPEG  OFA  |
|=============================================================================|
|   0  MIG 7g.40gb        0     1/1        39.50      No     98     5     0   |
|                                                             7     1     1   |
+-----------------------------------------------------------------------------+
"""
    imported = import_inventory(
        [("ana-01.txt", lgip), ("ana-01.log", b"GPU 0: NVIDIA L4 (UUID: a)\n")], CATALOG
    )
    (problem,) = (p for p in imported.problems if p.file == "ana-01.txt")
    assert problem.row == 6
    assert problem.message.startswith("host ana-01: nvidia-smi mig -lgip shows MIG profiles")
    assert "not L4 from ana-01.log (nvidia-smi -L)" in problem.message


def test_a_model_the_lgi_derives_losing_to_one_read_is_a_problem() -> None:
    """The A30 the -lgi derives (only the A30 offers 1g.6gb) and an inventory CSV reading
    another model for the host: the CSV's model is kept, the disagreement a problem on the
    -lgi's line."""
    name, lgi = sample(MIG_LGI)
    csv = (
        b"host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,mig_enabled\n"
        b"ana-01,c,A100-80GB-PCIe,1,32,256,25,no,yes\n"
    )
    imported = import_inventory([("hosts.csv", csv), (name, lgi)], CATALOG, host_name="ana-01")
    assert list(imported.frame["gpu_model"]) == ["A100-80GB-PCIe"]
    (problem,) = imported.problems
    assert (problem.file, problem.row) == (name, 6)
    assert problem.message == (
        "host ana-01: gpu_model is A30 here but A100-80GB-PCIe in hosts.csv; A100-80GB-PCIe is kept"
    )


def _lgip(rows: list[tuple[str, int, str, str, int]]) -> bytes:
    """An ``nvidia-smi mig -lgip`` table of GPU 0 with (profile, id, free/total, GiB, SMs) rows."""
    rule = "+" + "-" * 77 + "+"
    lines = [
        rule,
        "| GPU instance profiles:" + " " * 54 + "|",
        "| GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  |",
        "|                              Free/Total   GiB              CE    JPEG  OFA  |",
        "|" + "=" * 77 + "|",
    ]
    for profile, profile_id, counts, gib, sms in rows:
        lines.append(
            f"|   0  MIG {profile:<12}{profile_id:>4}     {counts:<9}{gib:>7}      No  "
            f"{sms:>5}     1     0   |"
        )
        lines.append("|" + " " * 61 + "1     1     0   |")
        lines.append(rule)
    return ("\n".join(lines) + "\n").encode()


def test_lgip_whose_full_profile_lists_fewer_sms_than_the_gh200_s_reads_as_the_h20() -> None:
    """An -lgip of the GH200's profile names whose 7g.96gb lists 78 SMs (the H20's count; the
    rows are built here, as no H20 -lgip was found) is not a GH200, whose 7g.96gb lists 132:
    the H20 is the model, and the fact says why the GH200 is ruled out."""
    lgip = _lgip([("1g.12gb", 19, "7/7", "11.00", 10), ("7g.96gb", 0, "1/1", "93.00", 78)])
    read = read_mig_profiles(lgip, "h20-01.txt", CATALOG)
    assert read.problems == ()
    (host,) = read.hosts
    assert host.open_model is None
    (model,) = (f for f in host.facts if f.field == "gpu_model")
    assert (model.value, model.source) == ("H20-96GB", "derived")
    assert "7g.96gb has 78 SMs, where a GH200-96GB's has 132" in model.note.text


def test_lgip_whose_sms_fit_both_the_gh200_and_the_h20_is_refused_naming_both() -> None:
    """An -lgip listing only a 3g.48gb of 60 SMs fits the GH200 and the H20 (neither SM count
    rules one out): no model is guessed, and the import refuses the host naming both models
    and how to name one; given the model, the host is kept."""
    lgip = _lgip([("3g.48gb", 9, "2/2", "46.50", 60)])
    (host,) = read_mig_profiles(lgip, "gpu-07.txt", CATALOG).hosts
    assert host.get("gpu_model") is None
    assert host.open_model is not None
    assert host.open_model.models == ("GH200-96GB", "H20-96GB")
    with pytest.raises(InputError) as refused:
        import_inventory([("gpu-07.txt", lgip)], CATALOG)
    problem = refused.value.problems[0]
    assert (problem.file, problem.row, problem.column) == ("gpu-07.txt", 6, "Name")
    assert "offered by 2 catalog models (GH200-96GB, H20-96GB)" in problem.message
    assert problem.fix.endswith("MODEL being one of GH200-96GB, H20-96GB")
    given = import_inventory(
        [("gpu-07.txt", lgip)], CATALOG, gpus_by_cluster={"imported": ("H20-96GB", 1)}
    )
    assert list(given.frame["gpu_model"]) == ["H20-96GB"]


def test_lgi_of_profiles_the_gh200_and_the_h20_share_is_refused_naming_both() -> None:
    """-lgi lists no SMs, so a 3g.48gb in place fits the GH200 and the H20: the host is refused
    naming both models."""
    lgi = A100_40GB_LGI.replace(b"3g.20gb", b"3g.48gb")
    (host,) = read_mig_instances(lgi, "gpu-08.txt", CATALOG).hosts
    assert host.open_model is not None
    assert host.open_model.models == ("GH200-96GB", "H20-96GB")
    with pytest.raises(InputError) as refused:
        import_inventory([("gpu-08.txt", lgi)], CATALOG)
    assert "(GH200-96GB, H20-96GB); none is guessed" in refused.value.problems[0].message


def test_lgi_beside_the_nvidia_smi_l_line_of_its_gpu_takes_the_model_it_names() -> None:
    """An -lgi of a 3g.48gb (the GH200's and the H20's) in a file that also holds the host's
    nvidia-smi -L: the GPU's name line gives the model, H20-96GB, with its line; the host is
    imported, with no problem."""
    lgi = (
        b"$ nvidia-smi -L\n"
        b"GPU 0: NVIDIA H20 (UUID: GPU-5e2b7c1a-0000-0000-0000-000000000000)\n"
        + A100_40GB_LGI.replace(b"3g.20gb", b"3g.48gb")
    )
    (host,) = read_mig_instances(lgi, "gpu-09.txt", CATALOG).hosts
    assert host.open_model is None
    (model,) = (f for f in host.facts if f.field == "gpu_model")
    assert (model.value, model.note.line) == ("H20-96GB", 2)
    assert "NVIDIA H20" in model.note.text
    imported = import_inventory([("gpu-09.txt", lgi)], CATALOG)
    assert list(imported.frame["gpu_model"]) == ["H20-96GB"]
    assert imported.problems == ()


def test_a_gpu_name_line_the_lgip_s_sms_rule_out_is_kept_with_a_problem() -> None:
    """An -lgip whose 7g.96gb lists 132 SMs (a GH200's) beside a name line calling GPU 0 an H20
    (78 SMs): the name read is kept, and a problem on its line names the GPU, the model, the
    SMs that rule it out and how to check."""
    lgip = b"GPU 0: NVIDIA H20 (UUID: GPU-5e2b7c1a-0000-0000-0000-000000000000)\n" + _lgip(
        [("7g.96gb", 0, "1/1", "93.00", 132)]
    )
    read = read_mig_profiles(lgip, "gpu-10.txt", CATALOG)
    (host,) = read.hosts
    assert {f.field: f.value for f in host.facts}["gpu_model"] == "H20-96GB"
    (problem,) = read.problems
    assert (problem.file, problem.row, problem.column) == ("gpu-10.txt", 1, "Name")
    assert problem.message == (
        "GPU 0 is named 'NVIDIA H20' (H20-96GB), but MIG profiles 7g.96gb (7g.96gb has 93 GiB) "
        "are offered by GH200-96GB, not by H20-96GB: 7g.96gb has 132 SMs, more than a whole "
        "H20-96GB's 78; H20-96GB is kept"
    )
    assert problem.fix.startswith("check that the nvidia-smi -L and nvidia-smi mig outputs")
