"""Tests of files the command line cannot write in full (a full disk, a quota): the file
already at the path stays as it was, no partial file is left, one line says why, exit 1."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from openpyxl import load_workbook

from planner.output.export import write_file_whole, write_sheets

resource = pytest.importorskip("resource")  # file size limits are POSIX

REPO = Path(__file__).resolve().parent.parent

PLAN = (sys.executable, "-m", "planner", "plan", "--methods", "passthrough", "--no-harvest")
"""A quick plan of the bundled sample."""

FILE_SIZE_LIMIT = 16 * 1024
"""Bytes a process may write to one file: far under any plan or harvest workbook."""


def _limited(command: list[str]) -> subprocess.CompletedProcess[str]:
    """``command`` run as by a user whose disk fills after ``FILE_SIZE_LIMIT`` bytes a file."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))

    return subprocess.run(
        command,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        preexec_fn=limit,
    )


def _earlier_workbook(path: Path) -> bytes:
    """A good workbook at ``path``, as a previous run left it; its bytes."""
    write_sheets({"Earlier": pd.DataFrame({"gpus": [8]})}, path)
    return path.read_bytes()


def test_a_plan_workbook_the_disk_cannot_hold_leaves_the_earlier_one_as_it_was(
    tmp_path: Path,
) -> None:
    """If the disk fills while ``plan --out`` writes, the earlier workbook at that path still
    opens with its contents, no partial file is left beside it, and stderr holds one line."""
    out = tmp_path / "plan.xlsx"
    earlier = _earlier_workbook(out)
    done = _limited([*PLAN, "--out", str(out)])
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [f"plan: cannot write {out}: File too large"]
    assert out.read_bytes() == earlier
    assert load_workbook(out).sheetnames == ["Earlier"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.xlsx"]


def test_harvest_sheets_the_disk_cannot_hold_leave_the_earlier_workbook_as_it_was(
    tmp_path: Path,
) -> None:
    """``harvest --workbook`` on a full disk keeps the earlier workbook and says so in a line."""
    out = tmp_path / "harvest.xlsx"
    earlier = _earlier_workbook(out)
    done = _limited([sys.executable, "-m", "planner", "harvest", "--workbook", str(out)])
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [f"harvest: cannot write {out}: File too large"]
    assert out.read_bytes() == earlier
    assert sorted(p.name for p in tmp_path.iterdir()) == ["harvest.xlsx"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_plan_workbook_sent_to_a_full_device_says_so_in_one_line() -> None:
    """A device that is full (``/dev/full``) is written directly, never replaced by a file:
    exit 1 and one line naming it, no traceback."""
    done = subprocess.run(
        [*PLAN, "--out", "/dev/full"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == ["plan: cannot write /dev/full: No space left on device"]
    assert stat.S_ISCHR(Path("/dev/full").stat().st_mode)


def test_a_file_the_disk_cannot_hold_is_not_written_at_all(tmp_path: Path) -> None:
    """``write_file_whole`` stopped by a full disk raises OSError, keeps the earlier file and
    leaves no partial file."""
    target = tmp_path / "plan.xlsx"
    target.write_bytes(b"earlier")
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from planner.output.export import write_file_whole\n"
        "try:\n"
        f"    write_file_whole(Path({str(target)!r}), bytes({4 * FILE_SIZE_LIMIT}))\n"
        "except OSError as error:\n"
        "    print(error.strerror)\n"
        "    sys.exit(1)\n"
    )
    done = _limited([sys.executable, "-c", script])
    assert (done.returncode, done.stdout.strip(), done.stderr) == (1, "File too large", "")
    assert target.read_bytes() == b"earlier"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.xlsx"]


def test_a_file_rewritten_keeps_its_permissions_and_the_link_to_it(tmp_path: Path) -> None:
    """Rewriting through a symbolic link replaces the file it points to, keeps the link, and
    keeps the file's permissions."""
    real = tmp_path / "real.xlsx"
    real.write_bytes(b"earlier")
    real.chmod(0o640)
    link = tmp_path / "plan.xlsx"
    link.symlink_to(real)
    write_file_whole(link, b"new")
    assert link.is_symlink()
    assert real.read_bytes() == b"new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.xlsx", "real.xlsx"]


def test_a_new_file_gets_the_permissions_of_any_new_file(tmp_path: Path) -> None:
    """A file written where none was takes the usual permissions (the umask applied), not the
    owner-only ones of a temporary file."""
    mask = os.umask(0o022)
    try:
        write_file_whole(tmp_path / "plan.xlsx", b"new")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "plan.xlsx").stat().st_mode) == 0o644


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["plan", "--no-harvest", "--out"], "argument --out: "),
        (["harvest", "--workbook"], "argument --workbook: "),
    ],
)
def test_a_workbook_named_as_another_kind_of_file_is_refused_before_planning(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    """--out plan.csv wrote an .xlsx workbook under a .csv name (a spreadsheet warns that the
    content does not match): refused before anything is planned or written, naming plan.xlsx;
    exit 2."""
    target = tmp_path / "plan.csv"
    done = subprocess.run(
        [sys.executable, "-m", "planner", *argv, str(target)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 2
    assert not target.exists()
    assert said in done.stderr
    assert "give a name ending in .xlsx (plan.xlsx)" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_writable_file_in_a_folder_not_writable_is_left_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``plan --out`` to a file in a folder that is not writable (the hidden file beside it
    cannot be created; root ignores permissions, so the refusal is simulated) exits 1 naming
    the folder, that it is not writable, that the earlier workbook was left untouched, and the
    fix; the earlier workbook is as it was."""
    from planner.cli import main

    out = tmp_path / "plan.xlsx"
    earlier = _earlier_workbook(out)
    create = os.open

    def refused(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path).parent == tmp_path and flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return create(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refused)
    assert main(["plan", "--methods", "passthrough", "--no-harvest", "--out", str(out)]) == 1
    [said] = capsys.readouterr().err.splitlines()
    assert said == (
        f"plan: cannot write {out}: its folder {tmp_path} is not writable (the file is written "
        "beside it under a hidden name, then renamed over it, so a full disk never leaves half "
        "a file); the plan.xlsx already there was left untouched. Choose a path in a folder "
        "you can write to, or make the folder writable"
    )
    assert out.read_bytes() == earlier
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.xlsx"]
