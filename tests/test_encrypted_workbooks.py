"""Tests of refusing an encrypted Excel workbook (a password or a sensitivity label) saying so."""

from __future__ import annotations

import pytest

from planner.inputs.importers.detect import detect_format
from planner.inputs.importers.sheets import is_encrypted_workbook, workbook_sheets
from planner.inputs.importers.workbook import read_plan_inputs
from planner.inputs.problems import InputError

_SECTOR = 512
_ENTRY = 128
_END_OF_CHAIN = 0xFFFFFFFE
_FREE = 0xFFFFFFFF
_FAT_SECTOR = 0xFFFFFFFD
_NO_ENTRY = 0xFFFFFFFF
_ENCRYPTED_XLSX = ("Root Entry", "EncryptionInfo", "\x06DataSpaces", "EncryptedPackage")
"""The directory of an .xlsx Excel saved with a password (MS-OFFCRYPTO): its package is a
stream of a compound file, no longer a zip."""
_LONG_ENCRYPTED_XLSX = (
    "Root Entry",
    "EncryptionInfo",
    "\x06DataSpaces",
    "DataSpaceMap",
    "StrongEncryptionDataSpace",
    "EncryptedPackage",
)
"""Six entries: the EncryptedPackage stream in the directory's second sector."""
_XLS = ("Root Entry", "Workbook", "\x05SummaryInformation")


def _u32(*numbers: int) -> bytes:
    return b"".join(n.to_bytes(4, "little") for n in numbers)


def compound_file(names: tuple[str, ...]) -> bytes:
    """A compound file (MS-CFB, version 3, 512-byte sectors) holding only a directory with
    ``names``, empty streams in the root: sector 0 the allocation table, the directory from
    sector 1 on, four entries a sector, chained."""
    per_sector = _SECTOR // _ENTRY
    directory = [names[i : i + per_sector] for i in range(0, len(names), per_sector)]
    header = (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
        + bytes(16)
        + (0x3E).to_bytes(2, "little")
        + (3).to_bytes(2, "little")
        + b"\xfe\xff"
        + (9).to_bytes(2, "little")  # 512-byte sectors
        + (6).to_bytes(2, "little")
        + bytes(6)
        + _u32(0, 1, 1, 0, 4096, _END_OF_CHAIN, 0, _END_OF_CHAIN, 0)
        + _u32(0, *[_FREE] * 108)
    )
    chain = [*range(2, len(directory) + 1), _END_OF_CHAIN]
    fat = _u32(_FAT_SECTOR, *chain, *[_FREE] * (_SECTOR // 4 - 1 - len(chain)))
    sectors = [fat]
    for first, part in zip(range(0, len(names), per_sector), directory, strict=True):
        entries = b""
        for number, name in enumerate(part, start=first):
            encoded = name.encode("utf-16-le") + b"\0\0"
            # The root (type 5) holds the first stream; each stream (type 2) links the next.
            kind, child, right = (5, 1, _NO_ENTRY) if number == 0 else (2, _NO_ENTRY, number + 1)
            if number == len(names) - 1:
                right = _NO_ENTRY
            entries += (
                encoded.ljust(64, b"\0")
                + len(encoded).to_bytes(2, "little")
                + bytes([kind, 1])
                + _u32(_NO_ENTRY, right, child)
                + bytes(36)
                + _u32(_END_OF_CHAIN, 0, 0)
            )
        sectors.append(entries.ljust(_SECTOR, b"\0"))
    return header + b"".join(sectors)


def test_an_encrypted_xlsx_is_told_apart_from_an_xls() -> None:
    """A compound file whose directory names an EncryptedPackage stream, in its first
    directory sector or one chained after it, is an encrypted workbook; an Excel 97-2003
    workbook, a compound file without that stream, a zip and a file cut short are not."""
    assert is_encrypted_workbook(compound_file(_ENCRYPTED_XLSX))
    assert is_encrypted_workbook(compound_file(_LONG_ENCRYPTED_XLSX))
    assert not is_encrypted_workbook(compound_file(_XLS))
    assert not is_encrypted_workbook(b"PK\x03\x04" + bytes(600))
    assert not is_encrypted_workbook(compound_file(_ENCRYPTED_XLSX)[:300])


def test_an_encrypted_workbook_given_as_an_import_says_it_is_encrypted_and_how_to_open_it() -> None:
    """An RVTools export saved with a password, given as an import, is refused as encrypted
    with how to remove the password, not as an Excel 97-2003 workbook to save as .xlsx (which
    keeps the password and the refusal); an .xls is still refused as one."""
    with pytest.raises(InputError) as refused:
        detect_format("RVTools_export_all.xlsx", compound_file(_ENCRYPTED_XLSX))
    (problem,) = refused.value.problems
    assert problem.file == "RVTools_export_all.xlsx"
    assert problem.message == (
        "the workbook is encrypted (a password or a sensitivity label), so it cannot be read"
    )
    assert problem.fix == (
        "open it in Excel and remove the password (File > Info > Protect Workbook), or save an "
        "unprotected copy, and give that"
    )
    with pytest.raises(InputError) as old:
        detect_format("old.xls", compound_file(_XLS))
    assert old.value.problems[0].message == "an Excel 97-2003 workbook (.xls), which is not read"


def test_an_encrypted_plan_workbook_says_it_is_encrypted() -> None:
    """A plan workbook encrypted after the planner wrote it is refused as encrypted, not as
    'not a readable Excel workbook' with the fix to give a plan workbook the planner wrote;
    a damaged workbook still reads as unreadable."""
    with pytest.raises(InputError) as refused:
        read_plan_inputs(compound_file(_ENCRYPTED_XLSX), file_name="plan.xlsx")
    (problem,) = refused.value.problems
    assert problem.file == "plan.xlsx"
    assert problem.message.startswith("the workbook is encrypted")
    with pytest.raises(InputError) as damaged:
        workbook_sheets(b"PK\x03\x04" + bytes(600), "plan.xlsx", "give the workbook")
    assert damaged.value.problems[0].message == "not a readable Excel workbook (.xlsx)"
