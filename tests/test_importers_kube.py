"""Tests of Kubernetes JSON and YAML documents and resource quantities."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Literal

import pytest
from importer_samples import KUBECTL_NODES, as_kubectl_yaml, node, pod, sample

from planner.inputs.importers import kube
from planner.inputs.importers.kube import (
    KubeObject,
    json_documents,
    kube_documents,
    kube_objects,
    list_items,
    object_kind,
    parse_quantity,
    quantity_gib,
    yaml_documents,
)
from planner.inputs.limits import (
    MAX_FILE_BYTES,
    MAX_FILE_MB,
    MAX_KUBECTL_JSON_BYTES,
    MAX_KUBECTL_JSON_MB,
)
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


def test_kubectl_yaml_reads_as_the_same_documents_as_its_json() -> None:
    """The RKE2 node sample written as kubectl -o yaml writes it gives the documents its JSON
    gives, every value of JSON's type; each form is told apart by its first character."""
    name, data = sample(KUBECTL_NODES)
    as_json = kube_documents(data, name)
    as_yaml = kube_documents(as_kubectl_yaml(data), "nodes.yaml")
    assert (as_json.form, as_yaml.form) == ("JSON", "YAML")
    assert as_yaml.documents == as_json.documents


def test_unquoted_yaml_scalars_read_as_json_values() -> None:
    """Unquoted, a number is a number and true, null and ~ what JSON means by them; a date, <<
    and = stay text (not YAML 1.1's timestamp, merge and value), as does anything quoted or
    tagged !!str."""
    data = (
        b"created: 2023-05-31T04:39:16Z\nday: 2024-01-02\ncount: 8\nquoted: '8'\nratio: 1.5\n"
        b"flag: true\nnothing: ~\nempty:\n<<: x\nmarker: =\ntagged: !!str 12\n"
    )
    assert yaml_documents(data, "v.yaml") == [
        {
            "created": "2023-05-31T04:39:16Z",
            "day": "2024-01-02",
            "count": 8,
            "quoted": "8",
            "ratio": 1.5,
            "flag": True,
            "nothing": None,
            "empty": None,
            "<<": "x",
            "marker": "=",
            "tagged": "12",
        }
    ]


LAUGHS = b"a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + b"".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n".encode()
    for i in range(8)
)
"""A billion laughs: nine aliases of the line above on each line, 9^9 'lol' when expanded."""


@pytest.mark.parametrize(
    ("data", "row", "said"),
    [
        (LAUGHS, 1, "an anchor (&a), for aliases to repeat (column 4)"),
        (b"kind: Node\nmetadata: *m\n", 2, "an alias (*m), which repeats a part of the file"),
        (b"a: !!python/object/apply:os.system [ls]\n", 1, "the tag !!python/object/apply"),
        (b"a:\n  b: !custom 3\n", 2, "the tag !custom (column 6)"),
        (b"a: !!binary aGk=\n", 1, "the tag !!binary"),
        (b"a: !!set {x, y}\n", 1, "the tag !!set"),
        (b"a: !!timestamp 2024-01-02\n", 1, "the tag !!timestamp"),
        (b"a: !!int many\n", 1, "'many' as !!int"),
        (b"a: !!bool maybe\n", 1, "'maybe' as !!bool"),
        (b"labels:\n  1: a\n", 2, "a mapping key that is not text"),
        (b"? [a, b]\n: c\n", 1, "a mapping key that is not text"),
        (b"a: " + b"[" * 100_000 + b"]" * 100_000 + b"\n", 1, "nesting over 64 levels deep"),
        (
            "".join(f"{'  ' * i}k{i}:\n" for i in range(70)).encode() + b"  " * 70 + b"v: 1\n",
            65,
            "nesting over 64 levels deep",
        ),
    ],
)
def test_yaml_kubectl_never_writes_is_refused_at_its_line_before_it_is_built(
    data: bytes, row: int, said: str
) -> None:
    """Anchors and aliases (a billion laughs), tags of types JSON lacks, keys that are not
    text and nesting past the limit are refused naming the line, never expanded: the refusal
    holds under 8 MB of memory (a billion laughs expanded takes gigabytes)."""
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as refused:
            yaml_documents(data, "hostile.yaml")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, f"{peak:,} bytes at peak"
    (problem,) = refused.value.problems
    assert problem.row == row
    assert problem.message.startswith("YAML with ")
    assert said in problem.message
    assert problem.message.endswith("which kubectl never writes")
    assert "-o json" in problem.fix


def test_broken_yaml_names_its_line_and_column() -> None:
    """A YAML syntax error is an InputError with the line and column it is on."""
    with pytest.raises(InputError) as caught:
        yaml_documents(b"items:\n- name: a\n  labels: [x, y\nkind: List\n", "nodes.yaml")
    (problem,) = caught.value.problems
    assert problem.row == 4
    assert problem.message == "not valid YAML (did not find expected ',' or ']', column 5)"


def test_yaml_of_no_document_is_empty() -> None:
    """Document markers alone, or comments, hold nothing: refused as an empty file."""
    with pytest.raises(InputError, match="the file is empty"):
        yaml_documents(b"---\n# nothing\n---\n", "none.yaml")


def test_an_items_array_without_a_kind_is_a_list_when_its_items_are_kubectl_objects() -> None:
    """``{"items": [...]}`` without a kind (jq's ``{items: [...]}``, a hand edit) is opened as
    kubectl's List is when every item is a kubectl object (a kind or a metadata object); an
    items array of anything else stays one object."""
    nodes = {"items": [node("a"), {"metadata": {"name": "b"}, "status": {}}]}
    assert list_items(nodes) == nodes["items"]
    assert kube_objects([nodes]) == nodes["items"]
    for other in ({"items": [{"a": "1"}]}, {"items": [node("a"), 3]}, {"items": []}):
        assert list_items(other) is None
        assert kube_objects([other]) == [other]
    assert list_items({"kind": "List", "items": []}) == []


def test_an_items_array_without_a_kind_reads_alike_in_yaml() -> None:
    """The same kindless list as YAML gives the same objects."""
    data = b"items:\n- metadata:\n    name: a\n  status:\n    capacity:\n      cpu: '8'\n"
    read = kube_documents(data, "n.yaml")
    assert read.form == "YAML"
    assert kube_objects(read.documents) == [
        {"metadata": {"name": "a"}, "status": {"capacity": {"cpu": "8"}}}
    ]


@pytest.mark.parametrize(
    ("item", "form", "what"),
    [
        (node("a"), "JSON", KubeObject.NODE),
        (pod("p"), "YAML", KubeObject.POD),
        ({"kind": "Pod"}, "JSON", KubeObject.POD),
        ({"kind": "Deployment", "metadata": {"name": "d"}, "status": {}}, "JSON", KubeObject.OTHER),
        ({"metadata": {"name": "a"}, "status": {}}, "YAML", KubeObject.NODE),
        (
            {"metadata": {"name": "p"}, "spec": {"containers": []}, "status": {}},
            "JSON",
            KubeObject.POD,
        ),
        ({"metadata": {"name": "a"}}, "JSON", KubeObject.OTHER),
        ({"status": {"capacity": {}}}, "JSON", KubeObject.OTHER),
        ({"kubernetes.io/hostname": "a"}, "JSON", KubeObject.NODE_LABELS),
        ({"kubernetes.io/hostname": "a"}, "YAML", KubeObject.OTHER),
        ({"metadata": "x"}, "JSON", KubeObject.OTHER),
    ],
)
def test_what_an_object_is_by_its_kind_else_its_shape(
    item: dict[str, object], form: Literal["JSON", "YAML"], what: KubeObject
) -> None:
    """A kind names what an object is (a Deployment is no node for its metadata and status);
    without one, spec.containers makes a pod, metadata and status objects a node, and a map of
    text a node's labels in JSON only."""
    assert object_kind(item, form) is what


def test_an_integer_longer_than_python_reads_is_refused_at_its_line_and_column() -> None:
    """An integer of more digits than Python reads (4,300), in any field, even one the planner
    never reads (kubectl writes none that long), is refused naming its line, column and length,
    in JSON as in YAML; a document is never left half read."""
    line = '  "metadata": {"name": "n1", "resourceVersion": ' + "9" * 5000 + "},"
    data = ('{\n  "kind": "Node",\n' + line + '\n  "status": {}\n}\n').encode()
    with pytest.raises(InputError) as refused:
        kube_documents(data, "nodes.json")
    (problem,) = refused.value.problems
    assert (problem.file, problem.row) == ("nodes.json", 3)
    assert problem.message == (
        f"an integer of 5,000 digits (column {line.index('9') + 1}), which kubectl never writes"
    )
    assert "kubectl ... -o json unchanged" in problem.fix
    with pytest.raises(InputError, match=r"5,000 digits|'9{20}"):
        kube_documents(b"kind: Node\nn: " + b"9" * 5000 + b"\n", "n.yaml")


@pytest.mark.parametrize("text", ["9" * 5000, "9" * 5000 + "Qi", "-1." + "5" * 5000 + "Qi"])
def test_a_long_quantity_is_cut_where_its_error_quotes_it(text: str) -> None:
    """A quantity too long to quote (5,000 characters) is cut in the error, its length said."""
    with pytest.raises(ValueError, match=rf"… \({len(text):,} characters\)") as refused:
        parse_quantity(text)
    assert len(str(refused.value)) < 160


def test_a_key_twice_in_one_object_is_refused_naming_it_and_its_line() -> None:
    """kubectl never writes a key twice in one object; which value was meant is unknown, so a
    file with one (a hand edit, two outputs pasted together) is refused, naming the key and
    the line of the object holding it (JSON) or of the key (YAML), never the last value taken
    silently."""
    data = b'{"kind": "Node",\n "status": {\n  "capacity": {"cpu": "8",\n   "cpu": "64"}}}\n'
    with pytest.raises(InputError) as refused:
        kube_documents(data, "nodes.json")
    (problem,) = refused.value.problems
    assert problem.row == 3
    assert problem.message == (
        "the key 'cpu' twice in one object (opened at column 15), which kubectl never writes"
    )
    assert "keep one" in problem.fix
    with pytest.raises(InputError) as refused:
        kube_documents(b"kind: Node\nstatus:\n  capacity:\n    cpu: '8'\n    cpu: '64'\n", "n.yaml")
    (problem,) = refused.value.problems
    assert problem.row == 5
    assert problem.message == (
        "YAML with the key 'cpu' twice in one mapping (column 5), which kubectl never writes"
    )


_OVER_LIMIT = MAX_FILE_BYTES + 1
_OVER_JSON_LIMIT = MAX_KUBECTL_JSON_BYTES + 1


@pytest.mark.parametrize(
    ("read", "data", "limit_mb"),
    [
        (json_documents, b"[" + b" " * _OVER_JSON_LIMIT + b"]", MAX_KUBECTL_JSON_MB),
        (yaml_documents, b"items: []\n" + b"#" * _OVER_LIMIT, MAX_FILE_MB),
        (kube_documents, b"[" + b" " * _OVER_JSON_LIMIT + b"]", MAX_KUBECTL_JSON_MB),
        (kube_documents, b"items: []\n" + b"#" * _OVER_LIMIT, MAX_FILE_MB),
    ],
    ids=["json_documents", "yaml_documents", "kube_documents JSON", "kube_documents YAML"],
)
def test_kubectl_output_over_the_size_limit_is_refused_before_it_is_read(
    read: Callable[[bytes, str], object],
    data: bytes,
    limit_mb: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """JSON over its 100 MB limit and YAML over the 20 MB limit are refused, naming the file,
    its size and the limit, before a byte is parsed, with the fix to split kubectl's output
    (JSON of any size was read whole when its reader was called without the format's
    detection)."""

    def parsed(*_: object) -> None:
        raise AssertionError("the file was parsed before its size was checked")

    monkeypatch.setattr(kube, "_decoder", parsed)
    monkeypatch.setattr(kube, "_yaml_values", parsed)
    with pytest.raises(InputError) as caught:
        read(data, "pods.out")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == ("pods.out", None)
    assert problem.message == f"the file is {limit_mb}.0 MB, over the limit of {limit_mb} MB"
    assert "-n NAMESPACE" in problem.fix
