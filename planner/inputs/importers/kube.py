"""Kubernetes output as ``kubectl ... -o json`` writes it: JSON documents and quantities."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from planner.inputs.importers.text import tool_text
from planner.inputs.problems import InputError, InputProblem

__all__ = [
    "as_mapping",
    "as_text",
    "json_documents",
    "kube_objects",
    "parse_quantity",
    "quantity_gib",
]

_QUANTITY = re.compile(
    r"^(?P<number>[+-]?(?:\d+(?:\.\d*)?|\.\d+))"
    r"(?:(?P<exponent>[eE][+-]?\d+)|(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$"
)
_SUFFIXES = {
    "": 1.0,
    "n": 1e-9,
    "u": 1e-6,
    "m": 1e-3,
    "k": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
    "Pi": 2.0**50,
    "Ei": 2.0**60,
}
"""Kubernetes quantity suffixes: decimal SI (``m`` = milli, as in ``500m`` CPU), binary IEC."""


def parse_quantity(text: object) -> float:
    """A Kubernetes quantity as a number: ``500m`` → 0.5, ``16367668Ki`` → 16,760,492,032,
    ``1.5Gi``, ``2``, ``1e3``, ``128M``. Raises ``ValueError`` for anything else."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise ValueError(f"{text!r} is not a quantity")
    match = _QUANTITY.match(str(text).strip())
    if match is None:
        raise ValueError(f"'{text}' is not a Kubernetes quantity (such as 2, 500m, 16Gi)")
    number = float(match.group("number") + (match.group("exponent") or ""))
    value = number * _SUFFIXES[match.group("suffix") or ""]
    if not math.isfinite(value):
        raise ValueError(f"'{text}' is out of range")
    return value


def quantity_gib(text: object) -> float:
    """A memory quantity in GiB: ``16367668Ki`` → 15.61 [GiB]."""
    return parse_quantity(text) / 2.0**30


def as_mapping(value: object) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else an empty mapping (absent and malformed alike)."""
    return value if isinstance(value, dict) else {}


def as_text(value: object) -> str:
    """A JSON scalar as text (labels are strings; hand edits may leave numbers); else ``""``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return ""


def json_documents(data: bytes, file: str) -> list[Any]:
    """Every JSON value in a file: one document, or several written one after another (what
    ``kubectl get node -o json | jq '.items[].metadata.labels'`` prints). Shell prompts pasted
    around the output are ignored.

    Raises ``InputError`` naming the line of the first JSON error.
    """
    text = tool_text(data, file).text
    decoder = json.JSONDecoder()
    documents = []
    position = 0
    try:
        while True:
            while position < len(text) and text[position] in " \t\n":
                position += 1
            if position >= len(text):
                break
            document, position = decoder.raw_decode(text, position)
            documents.append(document)
    except json.JSONDecodeError as error:
        raise InputError(
            [
                InputProblem(
                    file,
                    error.lineno,
                    None,
                    f"not valid JSON ({error.msg}, column {error.colno})",
                    "give the output of kubectl ... -o json unchanged",
                )
            ]
        ) from None
    except RecursionError:
        raise InputError(
            [InputProblem(file, None, None, "JSON nested too deeply", "give kubectl's output")]
        ) from None
    if not documents:
        raise InputError(
            [InputProblem(file, None, None, "the file is empty", "give kubectl's JSON output")]
        )
    return documents


def kube_objects(documents: list[Any]) -> list[Mapping[str, Any]]:
    """The objects in documents: a ``List``'s items, arrays flattened, lone objects as they are."""
    objects: list[Mapping[str, Any]] = []
    pending = list(reversed(documents))
    while pending:
        document = pending.pop()
        if isinstance(document, list):
            pending.extend(reversed(document))
        elif isinstance(document, dict):
            items = document.get("items")
            if isinstance(items, list) and "kind" in document:
                pending.extend(reversed(items))
            else:
                objects.append(document)
    return objects
