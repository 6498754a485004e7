"""Tests of tool output as text: encodings, pasted shell prompts, hosts named after files."""

from __future__ import annotations

import pytest

from planner.inputs.catalog import load_catalog
from planner.inputs.importers.detect import Format, detect_format
from planner.inputs.importers.nvidia_smi import read_nvidia_smi_list, read_nvidia_smi_table
from planner.inputs.importers.text import (
    decode_text,
    expand_node_set,
    host_from_file_name,
    host_outputs,
    name_host,
    tool_text,
)
from planner.inputs.problems import InputError
from planner.inputs.tabular import read_csv_table


def test_prompt_lines_and_trailing_blanks_are_left_out() -> None:
    """A pasted ``user@host:~$ nvidia-smi -L`` line, a bare trailing prompt and blank lines are
    not output; the prompt's host is kept and line numbers stay those of the file."""
    text = tool_text(
        b"alice@gpu-node-07:~$ nvidia-smi -L\nGPU 0: NVIDIA L4 (UUID: x)\n$\n\n\n", "a"
    )
    assert text.lines == ((2, "GPU 0: NVIDIA L4 (UUID: x)"),)
    assert text.prompt_host == "gpu-node-07"


@pytest.mark.parametrize(
    "prompt",
    [
        "$ nvidia-smi -L",
        "[root@gpu01 ~]# nvidia-smi",
        "(base) bob@box:~/work$ sudo nvidia-smi mig -lgi",
        "PS C:\\Users\\me> kubectl get nodes -o json",
        "% curl -s localhost:9400/metrics",
    ],
)
def test_common_prompts_are_recognised(prompt: str) -> None:
    """Bash, root, conda, PowerShell and zsh prompts running a known tool are not output."""
    assert tool_text(f"{prompt}\nGPU 0: X\n".encode(), "a").lines == ((2, "GPU 0: X"),)


def test_comment_lines_are_not_prompts() -> None:
    """A Prometheus ``# HELP`` line starts with # but runs no tool: it is output."""
    assert len(tool_text(b"# HELP DCGM_FI_DEV_GPU_UTIL x\n", "a").lines) == 1


def test_utf16_from_powershell_is_decoded() -> None:
    """PowerShell's ``>`` writes UTF-16 with a byte-order mark; it reads like UTF-8."""
    assert decode_text("GPU 0: NVIDIA L4\r\n".encode("utf-16"), "a") == "GPU 0: NVIDIA L4\n"


_LIST = "GPU 0: NVIDIA L4 (UUID: GPU-1)\r\nGPU 1: NVIDIA L4 (UUID: GPU-2)\r\n"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_its_byte_order_mark_is_decoded(encoding: str) -> None:
    """UTF-16 saved without its byte-order mark, little- or big-endian, is told by its zero
    bytes (most high bytes zero, no NUL character) and decoded; its format is detected as that
    of the text. It was refused as binary data."""
    data = _LIST.encode(encoding)
    assert decode_text(data, "gpus.txt") == _LIST.replace("\r\n", "\n")
    assert detect_format("gpus.txt", data) is Format.NVIDIA_SMI_LIST


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_output_cut_short_is_said_to_be_cut_short(encoding: str) -> None:
    """Tool output in UTF-16 with an odd number of bytes (PowerShell's ``>`` output copied in
    part) is said to be cut short, the fix to save the tool's whole output again; it was
    blamed on a character of another encoding, such as Latin-1."""
    data = _LIST.rstrip().encode(encoding)[:-1]
    with pytest.raises(InputError) as caught:
        decode_text(data, "gpus.txt")
    (problem,) = caught.value.problems
    assert problem.row == 2
    assert problem.message.startswith("UTF-16 text cut short: the file has an odd number of")
    assert problem.fix == (
        "save the tool's whole output again (redirect it with > file.txt) and give that file"
    )


@pytest.mark.parametrize(
    "data",
    [b"\xff\x00\x81\x92", b"L\x00\x00\x004\x00", "é".encode("utf-16-le") + b"\x00\x00"],
    ids=["one zero byte in two pairs", "a NUL pair", "a NUL character"],
)
def test_data_with_zero_bytes_unlike_utf16_text_is_still_binary(data: bytes) -> None:
    """Zero bytes in fewer than half the pairs, or a pair of zeros (a NUL character, which
    text never holds), is binary data, not UTF-16 text without its mark."""
    with pytest.raises(InputError, match="binary data"):
        decode_text(data, "dump.bin")


def test_binary_data_is_refused_with_the_file_name() -> None:
    """Bytes that are not text are an InputError naming the file."""
    with pytest.raises(InputError, match=r"dump\.bin"):
        decode_text(b"\xff\x00\x81\x92", "dump.bin")


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a PNG image"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "a JPEG image"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3", "a PDF document"),
        (b"\x1f\x8b\x08\x00", "a gzip archive"),
    ],
)
def test_a_file_of_another_kind_is_named_for_what_it_is(data: bytes, kind: str) -> None:
    """A screenshot, a PDF or a compressed file picked by mistake is refused as what it is (it
    was 'not UTF-8 text: byte 89', which suggests re-saving it), with the file's name."""
    with pytest.raises(InputError) as raised:
        decode_text(data, "gpu-07.csv")
    (problem,) = raised.value.problems
    assert problem.file == "gpu-07.csv"
    assert problem.message.startswith(f"this is {kind}, not the text")
    assert "UTF-8" not in problem.message


def test_hosts_are_named_after_files() -> None:
    """``gpu-node-07.txt`` names host gpu-node-07; a workbook tab is no host name."""
    assert host_from_file_name("gpu-node-07.txt") == "gpu-node-07"
    assert host_from_file_name("/tmp/gpu-node-07.example.com.csv") == "gpu-node-07.example.com"
    assert host_from_file_name("...") is None
    # nvidia-smi -q -x > gpu-07.xml, as the README shows it.
    assert host_from_file_name("gpu-07.xml") == "gpu-07"


def test_given_host_name_wins_over_prompt_and_file() -> None:
    """The host name given is read; else a prompt's host is derived; else the file's is assumed."""
    text = tool_text(b"me@box1:~$ nvidia-smi -L\nGPU 0: X\n", "box2.txt")
    assert name_host(text, "box3")[:2] == ("box3", "read")
    assert name_host(text, None)[:2] == ("box1", "derived")
    assert name_host(tool_text(b"GPU 0: X\n", "box2.txt"), None)[:2] == ("box2", "assumed")


def test_latin1_bytes_are_refused_naming_their_line_and_both_ways_to_save_utf8() -> None:
    """A Latin-1 'é' on line 3 (a CSV saved by Excel as plain 'CSV'): refused on row 3, the byte
    shown, with how to save UTF-8 from a shell and from Excel."""
    data = "host,gpu_model\na,L4\nb\u00e9,L4\n".encode("latin-1")
    with pytest.raises(InputError) as caught:
        tool_text(data, "inventory.csv")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == ("inventory.csv", 3)
    assert "byte E9 cannot be decoded" in problem.message
    assert "> file.txt" in problem.fix
    assert "CSV UTF-8" in problem.fix


def test_a_tool_output_and_a_planner_csv_in_latin1_get_one_message() -> None:
    """The same Latin-1 bytes read as a tool's output and as a planner CSV are refused alike:
    the same line and words; only the fix differs, a tool's output also being saved from a
    shell."""
    data = "host,gpu_model\na,L4\nb\u00e9,L4\n".encode("latin-1")
    with pytest.raises(InputError) as as_tool:
        decode_text(data, "inventory.csv")
    with pytest.raises(InputError) as as_csv:
        read_csv_table(data, "inventory.csv")
    (tool,) = as_tool.value.problems
    (planner_csv,) = as_csv.value.problems
    assert (tool.file, tool.row, tool.message) == (
        planner_csv.file,
        planner_csv.row,
        planner_csv.message,
    )
    assert "> file.txt" in tool.fix
    assert "> file.txt" not in planner_csv.fix


def test_a_latin1_byte_after_classic_mac_line_ends_is_on_its_own_line() -> None:
    """A file whose lines end in a bare carriage return (classic Mac OS) counts them: the bad
    byte on line 2 is refused on line 2, not line 1."""
    with pytest.raises(InputError) as caught:
        decode_text("GPU 0: X\rGPU 1: \u00e9\r".encode("latin-1"), "a.txt")
    assert caught.value.problems[0].row == 2


# nvidia-smi of driver 450 on a T4 as NVIDIA's cloud-native documentation shows it, every line
# indented three spaces by its code block (docs.nvidia.com/datacenter/cloud-native,
# "dcgme2e": GPU telemetry in Kubernetes, the nvidia-smi run in a CUDA container).
INDENTED_TABLE = b"""\
   +-----------------------------------------------------------------------------+
   | NVIDIA-SMI 450.51.06    Driver Version: 450.51.06    CUDA Version: 11.0     |
   |-------------------------------+----------------------+----------------------+
   | GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
   | Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
   |                               |                      |               MIG M. |
   |===============================+======================+======================|
   |   0  Tesla T4            On   | 00000000:00:1E.0 Off |                    0 |
   | N/A   34C    P8     9W /  70W |      0MiB / 15109MiB |      0%      Default |
   |                               |                      |                  N/A |
   +-------------------------------+----------------------+----------------------+
"""
# nvidia-smi -L of driver 590 on an H100 with four MIG devices, as a Markdown list indents it
# four spaces (utkuozdemir/nvidia_gpu_exporter, internal/captures/
# linux-x86_64__nvidia-h100-mig__590.48.01.txt @ c58c3331, "list (-L)" section).
INDENTED_LIST = b"""\
    GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)
      MIG 3g.40gb     Device  0: (UUID: MIG-00000000-0000-0000-0000-000000000000)
      MIG 2g.20gb     Device  1: (UUID: MIG-00000001-0000-0000-0000-000000000001)
      MIG 1g.10gb     Device  2: (UUID: MIG-00000002-0000-0000-0000-000000000002)
      MIG 1g.10gb     Device  3: (UUID: MIG-00000003-0000-0000-0000-000000000003)
"""


def test_output_indented_as_a_whole_reads_as_the_output() -> None:
    """Output copied from a documentation code block, every line indented alike, loses that
    shared indentation (a line's indentation relative to the others stays): the table and the
    -L list are detected and read as printed."""
    catalog = load_catalog()
    assert detect_format("t4.txt", INDENTED_TABLE) is Format.NVIDIA_SMI_TABLE
    (t4,) = read_nvidia_smi_table(INDENTED_TABLE, "t4.txt", catalog).hosts
    assert [(f.field, f.value) for f in t4.facts if f.field in ("gpu_model", "gpus_per_host")] == [
        ("gpu_model", "T4"),
        ("gpus_per_host", 1),
    ]
    assert detect_format("h100.txt", INDENTED_LIST) is Format.NVIDIA_SMI_LIST
    (h100,) = read_nvidia_smi_list(INDENTED_LIST, "h100.txt", catalog).hosts
    assert [i.profile for g in h100.mig_layout for i in g.instances] == [
        "3g.40gb",
        "2g.20gb",
        "1g.10gb",
        "1g.10gb",
    ]
    assert tool_text(INDENTED_LIST, "a").lines[1] == (
        2,
        "  MIG 3g.40gb     Device  0: (UUID: MIG-00000000-0000-0000-0000-000000000000)",
    )


@pytest.mark.parametrize(
    ("written", "hosts"),
    [
        ("gpu[01-03,07],login1", ["gpu01", "gpu02", "gpu03", "gpu07", "login1"]),
        ("rack[1-2]-gpu[1-2]", ["rack1-gpu1", "rack1-gpu2", "rack2-gpu1", "rack2-gpu2"]),
        ("gpu[01-05/2]", ["gpu01", "gpu03", "gpu05"]),
        ("gpu03", ["gpu03"]),
        ("gpu[3-1]", None),
        ("gpu[0-999999999]", None),
        ("gpu[01-02", None),
        ("gpu[a-b]", None),
    ],
)
def test_a_clush_host_set_stands_for_each_of_its_hosts(
    written: str, hosts: list[str] | None
) -> None:
    """ClusterShell's folded host sets are spelt out as clush folds them (ranges keep their
    zero padding, several brackets multiply); a set that is no host set, or stands for more
    than MAX_HOSTS hosts, is None rather than a guess."""
    assert expand_node_set(written) == hosts


def test_one_hosts_output_is_no_run_over_several_hosts() -> None:
    """nvidia-smi -L of one host is none of pdsh's, clush's or Ansible's layouts."""
    assert host_outputs(tool_text(b"GPU 0: NVIDIA L4 (UUID: GPU-1)\n", "gpu-01.txt")) is None


def test_ansibles_one_line_output_is_refused_with_the_option_to_leave_out() -> None:
    """``ansible -o`` joins a host's lines with ``\\n``: refused, naming -o."""
    data = b"gpu01 | CHANGED | rc=0 | (stdout) GPU 0: NVIDIA L4 (UUID: GPU-1)\\nGPU 1: NVIDIA L4\n"
    with pytest.raises(InputError) as caught:
        host_outputs(tool_text(data, "gpus.txt"))
    (problem,) = caught.value.problems
    assert (problem.row, problem.message.split(",")[0]) == (1, "Ansible's one-line output (-o)")
    assert "without -o" in problem.fix


def test_ansibles_warnings_and_clush_messages_are_listed_not_read_as_output() -> None:
    """Ansible's ``[WARNING]:`` line and clush's ``clush: host: ...`` message are problems
    naming their row, never a host's output; a clush host set whose count disagrees with its
    hosts is a problem and its block is left out."""
    ansible = tool_text(
        b"[WARNING]: Platform linux on host gpu01 is using the discovered Python interpreter\n"
        b"gpu01 | CHANGED | rc=0 >>\nGPU 0: NVIDIA L4 (UUID: GPU-1)\n",
        "a.txt",
    )
    run = host_outputs(ansible)
    assert run is not None
    assert [line for _, line in run.outputs["gpu01"].lines] == ["GPU 0: NVIDIA L4 (UUID: GPU-1)"]
    (warning,) = run.problems
    assert (
        warning.row,
        warning.message.endswith("is no host's output in this Ansible run: ignored"),
    ) == (1, True)
    rule = b"-" * 15
    clush = tool_text(
        b"clush: gpu04: exited with exit code 255\n"
        + rule
        + b"\ngpu[01-02] (3)\n"
        + rule
        + b"\nGPU 0: NVIDIA L4\n"
        + rule
        + b"\ngpu03\n"
        + rule
        + b"\nGPU 0: NVIDIA L4\n",
        "c.txt",
    )
    run = host_outputs(clush)
    assert run is not None
    assert list(run.outputs) == ["gpu03"]
    exited, miscounted = run.problems
    assert miscounted.row == 3
    assert "stands for 2 hosts, not 3: its output is left out" in miscounted.message
    assert (exited.row, exited.message) == (
        1,
        "host gpu04: clush reports 'exited with exit code 255'",
    )


def test_a_pdsh_hosts_blank_lines_stay_in_its_output() -> None:
    """pdsh prints a host's blank line as ``host: `` (saved without its space): a blank line of
    that host, not a line without a prefix."""
    text = tool_text(b"gpu-01: a\ngpu-01: \ngpu-01: b\ngpu-02: c\n", "p.txt")
    run = host_outputs(text)
    assert run is not None
    assert run.outputs["gpu-01"].lines == ((1, "a"), (2, ""), (3, "b"))
    assert host_outputs(tool_text(b"gpu-01: a\nother:\n", "p.txt")) is None


def test_a_last_word_naming_the_output_is_no_part_of_the_host_name() -> None:
    """README names one host's files gpu-07.txt (nvidia-smi -L) and gpu-07-mig.txt (mig -lgi):
    both name the host gpu-07, so its MIG layout is not a phantom host gpu-07-mig's. A name that
    is only such a word stays as it is."""
    assert host_from_file_name("gpu-07-mig.txt") == "gpu-07"
    assert host_from_file_name("/data/GPU-07_LGIP.txt") == "GPU-07"
    assert host_from_file_name("gpu-07-nvidia-smi.csv") == "gpu-07"
    assert host_from_file_name("gpu-07.smi.txt") == "gpu-07"
    assert host_from_file_name("mig.txt") == "mig"
    assert host_from_file_name("nvidia-smi.txt") == "nvidia-smi"
    assert host_from_file_name("migration-01.txt") == "migration-01"
    assert host_from_file_name("node-smith.txt") == "node-smith"
