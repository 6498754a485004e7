"""Server types a cluster may be sized with: the catalog's ``servers.csv`` or the user's own.

The file has the inventory's columns (``planner.inputs.inventory``), one row per server type:
``host`` names the type and ``notes`` carries its source, so a server type passes exactly the
rules an inventory row does (GPUs per host a multiple of the board, a known model, ...).
"""

from __future__ import annotations

from pathlib import Path

from planner.inputs.catalog import CATALOG_DIR, Catalog
from planner.inputs.inventory import ServerType, load_inventory
from planner.inputs.problems import Loaded

__all__ = ["SERVERS_CSV", "load_server_types"]

SERVERS_CSV = CATALOG_DIR / "servers.csv"
"""Typical GPU server configurations; guesses are marked in their ``notes``."""


def load_server_types(
    catalog: Catalog, source: Path | str | bytes = SERVERS_CSV, *, file_name: str | None = None
) -> Loaded[tuple[ServerType, ...]]:
    """Each row of the file as a server type named by its ``host``, in file order; a row with
    a ``count`` gives one type (its hosts share one shape)."""
    loaded = load_inventory(source, catalog, file_name=file_name)
    types: dict[ServerType, ServerType] = {}
    for host in loaded.value.hosts:
        types.setdefault(ServerType.of(host), ServerType.of(host, host.name))
    return Loaded(tuple(types.values()), loaded.problems)
