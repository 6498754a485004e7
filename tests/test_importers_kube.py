"""Tests of Kubernetes JSON documents and resource quantities."""

from __future__ import annotations

import pytest

from planner.inputs.importers.kube import json_documents, kube_objects, parse_quantity, quantity_gib
from planner.inputs.problems import InputError


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2", 2.0),
        ("500m", 0.5),
        ("1.5", 1.5),
        ("16367668Ki", 16367668 * 1024.0),
        ("2Mi", 2.0 * 2**20),
        ("4Gi", 4.0 * 2**30),
        ("1Ti", 2.0**40),
        ("1k", 1000.0),
        ("128M", 128e6),
        ("3G", 3e9),
        ("1e3", 1000.0),
        ("250u", 250e-6),
        (8, 8.0),
    ],
)
def test_quantities_in_every_suffix(text: object, value: float) -> None:
    """Plain, milli, SI decimal, IEC binary and exponent quantities read as numbers."""
    assert parse_quantity(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "Gi", "12 Gi", "1.2.3", "ten", "5Kb", None, True, "1e999"])
def test_bad_quantities_are_value_errors(text: object) -> None:
    """Text that is no Kubernetes quantity raises ValueError naming it."""
    with pytest.raises(ValueError, match=r"quantity|range"):
        parse_quantity(text)


def test_memory_in_gib() -> None:
    """A node's ``16367668Ki`` is 15.61 GiB."""
    assert quantity_gib("16367668Ki") == pytest.approx(15.6094, abs=1e-4)


def test_concatenated_objects_are_several_documents() -> None:
    """``jq '.items[].metadata.labels'`` prints objects one after another; each is a document."""
    data = b'$ kubectl get node -o json | jq ".items[].metadata.labels"\n{"a": "1"}\n{"b": "2"}\n'
    assert json_documents(data, "labels.json") == [{"a": "1"}, {"b": "2"}]


def test_lists_and_arrays_flatten_to_objects() -> None:
    """A List's items and an array's members are the objects; other documents stay whole."""
    documents = [{"kind": "List", "items": [{"kind": "Node"}]}, [{"x": "1"}], {"kind": "Pod"}]
    assert kube_objects(documents) == [{"kind": "Node"}, {"x": "1"}, {"kind": "Pod"}]


def test_broken_json_names_its_line() -> None:
    """A JSON syntax error is an InputError with the line it is on."""
    with pytest.raises(InputError) as caught:
        json_documents(b'{\n  "items": [\n  }\n', "nodes.json")
    assert caught.value.problems[0].row == 3
