"""Units written in a number cell (``80 GiB``, ``64 cores``, ``25 Gbps``): read when they are the
column's own unit, refused naming what to write otherwise.

A column holds one unit, named in its header (``ram_gib``). A cell that repeats that unit reads
as its number. A cell in another unit is never converted silently: the message gives the number
to write, exactly when the conversion is exact (``1 TiB`` is 1024 GiB), and both readings when
the unit reads two ways (``512 GB`` is 512 GiB as memory is sold, or 476.8 GiB of 10^9 bytes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from planner.inputs.tabular import GROUP_MARKS, CellError

__all__ = [
    "CORES",
    "GBIT_PER_S",
    "GIB",
    "GPUS",
    "VCPUS",
    "WATTS",
    "CellUnit",
    "Conversion",
]

_GROUPS = re.compile(f"[{''.join(GROUP_MARKS)}]")
"""A thousands separator other than a comma or a point (``tabular.GROUP_MARKS``)."""
_NUMBER_AND_UNIT = re.compile(
    rf"^(?P<number>[+-]?\d(?:[\d.,_]|{_GROUPS.pattern}(?=\d))*)\s*(?P<unit>[A-Za-z][A-Za-z/]*)$"
)
"""A number followed by a unit word: ``80 GiB``, ``80GB``, ``25Gb/s``, ``1 024 GiB`` (its
thousands separated as a locale's Excel writes them, which the number parser then names)."""


@dataclass(frozen=True)
class Conversion:
    """A unit other than the column's, with how many of the column's unit one of it is."""

    factor: float
    """One of this unit in the column's unit (1 TiB = 1024 GiB)."""
    what: str
    """What the unit is, in words (``tebibytes (2^40 bytes)``)."""
    binary_reading: float | None = None
    """For a decimal memory unit (GB, TB) that memory vendors use for binary sizes: one of it in
    the column's unit when read as binary (1 TB of RAM is sold as 1024 GiB); None when the unit
    reads one way only."""


@dataclass(frozen=True)
class CellUnit:
    """The unit of a number column and the spellings a cell may carry."""

    name: str
    """As messages write it (``GiB``)."""
    spellings: frozenset[str]
    """Spellings of the column's own unit, matched ignoring case (``gib``, ``gi``)."""
    others: Mapping[str, Conversion] = field(default_factory=dict)
    """Other units a cell may be written in, by spelling; matched exactly first, then ignoring
    case (``GB/s`` is bytes and ``Gb/s`` bits, so both are listed where case matters)."""

    def number_text(self, text: str) -> str:
        """The cell's number without its unit when the unit is the column's; the text unchanged
        when it carries no unit word (the number parser then judges it).

        Raises ``CellError`` for another unit, naming what to write instead.
        """
        match = _NUMBER_AND_UNIT.match(text.strip())
        if match is None:
            return text
        number, unit = match.group("number"), match.group("unit")
        conversion = self.others.get(unit)
        if conversion is None and unit.lower() in self.spellings:
            return number
        conversion = conversion or next(
            (c for spelling, c in self.others.items() if spelling.lower() == unit.lower()), None
        )
        column = f"the column is in {self.name}"
        if conversion is None:
            raise CellError(
                f"'{text}': '{unit}' is not a unit of this column ({column})",
                f"write the number alone in {self.name} ({number})",
            )
        value = _value(number)
        if value is None:
            raise CellError(
                f"'{text}' is not a number followed by a unit",
                f"write the number alone in {self.name}",
            )
        exact = _shown(value * conversion.factor)
        if conversion.binary_reading is None:
            raise CellError(
                f"'{text}' is in {conversion.what}; {column}",
                f"write {exact} ({number} {unit} in {self.name})",
            )
        binary = _shown(value * conversion.binary_reading)
        raise CellError(
            f"'{text}' reads two ways: {binary} {self.name} if {unit} is meant as memory is sold "
            f"(binary), or {exact} {self.name} if it is {conversion.what}; {column}",
            f"write {binary} if {number} {unit} is meant as {binary} {self.name} (binary, as RAM "
            f"and GPU memory are sold), or {exact} if it is {conversion.what}",
        )


def _value(number: str) -> float | None:
    try:
        return float(_GROUPS.sub("", number).replace("_", "").replace(",", "."))
    except ValueError:
        return None


def _shown(value: float) -> str:
    """A converted number as the user should write it: whole when it is, else to 0.1 from 10
    up and to 3 significant digits below (``476.8``, ``0.025``)."""
    if float(value).is_integer():
        return f"{int(value)}"
    return f"{round(value, 1):g}" if abs(value) >= 10 else f"{value:.3g}"


_GIB = 2**30
GIB = CellUnit(
    "GiB",
    frozenset({"gib", "gi", "gibibytes"}),
    {
        "MiB": Conversion(2**20 / _GIB, "mebibytes (2^20 bytes)"),
        "Mi": Conversion(2**20 / _GIB, "mebibytes (2^20 bytes)"),
        "TiB": Conversion(1024, "tebibytes (2^40 bytes)"),
        "Ti": Conversion(1024, "tebibytes (2^40 bytes)"),
        "MB": Conversion(10**6 / _GIB, "megabytes (10^6 bytes)", 1 / 1024),
        "GB": Conversion(10**9 / _GIB, "gigabytes (10^9 bytes)", 1),
        "G": Conversion(10**9 / _GIB, "gigabytes (10^9 bytes)", 1),
        "TB": Conversion(10**12 / _GIB, "terabytes (10^12 bytes)", 1024),
        "T": Conversion(10**12 / _GIB, "terabytes (10^12 bytes)", 1024),
    },
)
"""Memory in GiB (2^30 bytes)."""

CORES = CellUnit("cores", frozenset({"core", "cores"}))
"""CPU cores."""

VCPUS = CellUnit("vCPUs", frozenset({"vcpu", "vcpus", "cpu", "cpus", "core", "cores"}))
"""Virtual CPUs."""

GPUS = CellUnit("GPUs", frozenset({"gpu", "gpus"}))
"""GPUs, whole or a fraction of one."""

GBIT_PER_S = CellUnit(
    "Gbit/s",
    frozenset({"gbit/s", "gb/s", "gbps", "gbit", "gbe", "g"}),
    {
        "GB/s": Conversion(8, "gigabytes per second (8 Gbit/s each)"),
        "GBps": Conversion(8, "gigabytes per second (8 Gbit/s each)"),
        "GByte/s": Conversion(8, "gigabytes per second (8 Gbit/s each)"),
        "Mbit/s": Conversion(0.001, "megabits per second"),
        "Mb/s": Conversion(0.001, "megabits per second"),
        "Mbps": Conversion(0.001, "megabits per second"),
        "Tbit/s": Conversion(1000, "terabits per second"),
        "Tbps": Conversion(1000, "terabits per second"),
    },
)
"""Network bandwidth in gigabits per second (``25GbE`` and a NIC's ``25G`` are 25 Gbit/s)."""

WATTS = CellUnit("W", frozenset({"w", "watt", "watts"}), {"kW": Conversion(1000, "kilowatts")})
"""Power in watts."""
