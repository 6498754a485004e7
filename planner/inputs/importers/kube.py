"""Kubernetes output as ``kubectl ... -o json`` or ``-o yaml`` writes it: documents and quantities.

Both forms are read into the values JSON has (objects with text keys, arrays, text, numbers,
true/false, null), so the importers read one shape whichever form was given. kubectl's YAML is
its JSON written as YAML: no anchors, aliases or tags, and text that YAML would read as another
type quoted. Anything else is refused before it is built: an alias can make a few kilobytes expand
exponentially (a "billion laughs"), and a tag names a type JSON does not have.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from json.decoder import JSONObject  # type: ignore[attr-defined]  # Python's own, not in stubs
from json.scanner import py_make_scanner  # type: ignore[attr-defined]  # as JSONObject
from typing import Any, Literal

import yaml

from planner.inputs.importers.text import tool_text
from planner.inputs.limits import MAX_FILE_MB, MAX_KUBECTL_JSON_MB
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.tabular import quoted, refuse_large_file

__all__ = [
    "KubeDocuments",
    "KubeObject",
    "as_mapping",
    "as_text",
    "json_documents",
    "kube_documents",
    "kube_objects",
    "list_items",
    "object_kind",
    "parse_quantity",
    "quantity_gib",
    "quantity_text",
    "yaml_documents",
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
        raise ValueError(
            f"{quoted(str(text))} is not a Kubernetes quantity (such as 2, 500m, 16Gi)"
        )
    number = float(match.group("number") + (match.group("exponent") or ""))
    value = number * _SUFFIXES[match.group("suffix") or ""]
    if not math.isfinite(value):
        raise ValueError(f"{quoted(str(text))} is out of range")
    return value


def quantity_text(raw: object, value: float) -> str:
    """A quantity as written, with its value when a suffix or form hides it: ``'1k' (1000)``,
    ``'8'``."""
    written = str(raw).strip()
    number = f"{value:.0f}" if value.is_integer() else f"{value:g}"
    return quoted(written) + ("" if written == number else f" ({number})")


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


_JSON_FIX = "give the output of kubectl ... -o json unchanged"
_SIZE_FIX = (
    "give fewer objects in each file: one namespace at a time (kubectl get pods -n NAMESPACE), "
    "or those a label selects (-l), each file under the limit"
)
"""How to give kubectl JSON output over ``MAX_KUBECTL_JSON_MB``."""
_YAML_SIZE_FIX = f"run kubectl with -o json (read up to {MAX_KUBECTL_JSON_MB} MB), or {_SIZE_FIX}"
"""How to give kubectl YAML output over ``MAX_FILE_MB``: YAML is read several times slower than
JSON, so JSON has the larger limit."""


def _refuse_large_output(data: bytes, file: str, form: Literal["JSON", "YAML"]) -> None:
    """Refuse kubectl output over its form's limit before it is decoded: JSON over
    ``MAX_KUBECTL_JSON_MB``, YAML over ``MAX_FILE_MB``."""
    if form == "JSON":
        refuse_large_file(file, len(data), limit_mb=MAX_KUBECTL_JSON_MB, fix=_SIZE_FIX)
    else:
        refuse_large_file(file, len(data), limit_mb=MAX_FILE_MB, fix=_YAML_SIZE_FIX)


class _LongIntegerError(Exception):
    """An integer in JSON longer than Python reads (``sys.get_int_max_str_digits``, 4,300
    digits): ``int`` raises a ValueError naming neither line nor column."""

    def __init__(self, literal: str) -> None:
        super().__init__(literal[:40])
        self.literal = literal


def _integer(literal: str) -> int:
    """A JSON integer as Python's ``int``; ``_LongIntegerError`` when it is too long to read."""
    try:
        return int(literal)
    except ValueError:
        raise _LongIntegerError(literal) from None


class _DuplicateKeyError(Exception):
    """A key twice in one JSON object: kubectl never writes one, and which value was meant is
    not known. ``opened``: the index where the object opens, once known."""

    def __init__(self, key: str) -> None:
        super().__init__(key[:40])
        self.key = key
        self.opened: int | None = None


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict; ``_DuplicateKeyError`` when it holds a key twice."""
    built = dict(pairs)
    if len(built) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return built


def _decoder() -> json.JSONDecoder:
    """The JSON reader of kubectl's output: ``_integer``'s integers, ``_object``'s objects."""
    return json.JSONDecoder(parse_int=_integer, object_pairs_hook=_object)


class _ObjectLocator(json.JSONDecoder):
    """``_decoder``'s reader over Python's own JSON scanner, which says where each object opens
    (the C one, which reads fast, does not): the innermost object holding a key twice sets its
    opening on the ``_DuplicateKeyError``."""

    def __init__(self) -> None:
        super().__init__(parse_int=_integer, object_pairs_hook=_object)
        self.parse_object = self._located_object
        self.scan_once = py_make_scanner(self)

    @staticmethod
    def _located_object(text_and_end: tuple[str, int], *rest: Any) -> Any:
        try:
            return JSONObject(text_and_end, *rest)
        except _DuplicateKeyError as error:
            if error.opened is None:
                error.opened = text_and_end[1] - 1  # the index after the object's "{"
            raise


def _object_opening(text: str, start: int) -> int | None:
    """Where the first object holding a key twice opens, in the document at index ``start``
    of ``text`` (read again by ``_ObjectLocator``); None when it cannot be told."""
    try:
        _ObjectLocator().raw_decode(text, start)
    except _DuplicateKeyError as error:
        return error.opened
    except (ValueError, RecursionError, _LongIntegerError):
        return None
    return None


def _line_and_column(text: str, at: int) -> tuple[int, int]:
    """The line and column (both from 1) of the character at index ``at`` of ``text``."""
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)


def json_documents(data: bytes, file: str) -> list[Any]:
    """Every JSON value in a file: one document, or several written one after another (what
    ``kubectl get node -o json | jq '.items[].metadata.labels'`` prints). Shell prompts pasted
    around the output are ignored.

    Raises ``InputError`` naming the line of the first JSON error, of an integer too long for
    Python to read, or of an object holding a key twice (kubectl writes neither); a file over
    ``MAX_KUBECTL_JSON_MB`` is refused before it is read.
    """
    _refuse_large_output(data, file, "JSON")
    text = tool_text(data, file).text
    decoder = _decoder()
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
                    _JSON_FIX,
                )
            ]
        ) from None
    except _LongIntegerError as error:
        # The reader does not say where the integer is: its first copy in the document is it.
        line, column = _line_and_column(text, text.find(error.literal, position))
        digits = len(error.literal.lstrip("-"))
        message = f"an integer of {digits:,} digits (column {column}), which kubectl never writes"
        raise InputError([InputProblem(file, line, None, message, _JSON_FIX)]) from None
    except _DuplicateKeyError as error:
        opened = _object_opening(text, position)
        opened_on: int | None = None
        where = ""
        if opened is not None:
            opened_on, column = _line_and_column(text, opened)
            where = f" (opened at column {column})"
        message = (
            f"the key {quoted(error.key)} twice in one object{where}, which kubectl never writes"
        )
        fix = f"keep one of the two values, or {_JSON_FIX}"
        raise InputError([InputProblem(file, opened_on, None, message, fix)]) from None
    except RecursionError:
        raise InputError(
            [InputProblem(file, None, None, "JSON nested too deeply", "give kubectl's output")]
        ) from None
    if not documents:
        raise InputError(
            [InputProblem(file, None, None, "the file is empty", "give kubectl's JSON output")]
        )
    return documents


_YAML_MAX_DEPTH = 64
"""Most mappings and sequences open inside one another [levels]: kubectl's objects nest about 20
deep (``managedFields``' field sets the deepest)."""
_YAML_TAG = "tag:yaml.org,2002:"
_STR, _NULL, _BOOL, _INT, _FLOAT = (
    f"{_YAML_TAG}{name}" for name in ("str", "null", "bool", "int", "float")
)
_JSON_TAGS = frozenset({_STR, _NULL, _BOOL, _INT, _FLOAT, f"{_YAML_TAG}seq", f"{_YAML_TAG}map"})
"""The YAML tags of JSON's types: the only tags a file may write (``!!str``)."""
_PARSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser when PyYAML was built with it (several times faster), else PyYAML's."""
_PLAIN_TYPES: dict[str | None, list[tuple[str, Any]]] = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag in _JSON_TAGS]
    for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()
}
"""YAML's rules for the type of an unquoted scalar, by its first character, for JSON's types
only: a date stays text (kubectl quotes its timestamps; a hand edit may not), and ``<<`` and
``=`` are text, not YAML 1.1's merge and value markers."""
_SCALARS = yaml.constructor.SafeConstructor()
_BUILD = {
    _NULL: _SCALARS.construct_yaml_null,
    _BOOL: _SCALARS.construct_yaml_bool,
    _INT: _SCALARS.construct_yaml_int,
    _FLOAT: _SCALARS.construct_yaml_float,
}
"""How a scalar of each of JSON's types other than text is built from its YAML text."""


class _UnkubectlYamlError(Exception):
    """What kubectl never writes in its YAML, met while reading it."""

    def __init__(self, mark: Any, message: str) -> None:
        super().__init__(message)
        self.mark = mark
        self.message = message


def _scalar(event: Any) -> Any:
    """A scalar event's value as JSON's type: text when quoted or tagged ``!!str``, else by
    YAML's rules for JSON's types (``_PLAIN_TYPES``) or its tag."""
    tag, value = event.tag, event.value
    if tag is None:
        if not event.implicit[0]:
            return value
        candidates = _PLAIN_TYPES.get(value[:1] if value else "", []) + _PLAIN_TYPES.get(None, [])
        tag = next((t for t, pattern in candidates if pattern.match(value)), _STR)
    if tag == _STR:
        return value
    if tag not in _BUILD:
        raise _UnkubectlYamlError(event.start_mark, f"the tag {_shown_tag(tag)}")
    try:
        return _BUILD[tag](yaml.ScalarNode(tag, value))
    except (ValueError, KeyError):
        # KeyError: a text !!bool does not know (!!bool maybe); ValueError: any other type's.
        raise _UnkubectlYamlError(
            event.start_mark, f"{quoted(value[:40])} as {_shown_tag(tag)}"
        ) from None


def _shown_tag(tag: str) -> str:
    """A tag as a YAML file writes it: ``!!binary``, ``!custom``."""
    return tag.replace(_YAML_TAG, "!!")[:60]


def _refuse_unkubectl(event: Any) -> None:
    """Refuse an event of what kubectl never writes: an alias or anchor (an alias can make a
    few kilobytes expand exponentially, a "billion laughs"), a tag other than JSON's types."""
    mark = event.start_mark
    if isinstance(event, yaml.AliasEvent):
        raise _UnkubectlYamlError(
            mark, f"an alias (*{event.anchor}), which repeats a part of the file without bound"
        )
    if getattr(event, "anchor", None) is not None:
        raise _UnkubectlYamlError(mark, f"an anchor (&{event.anchor}), for aliases to repeat")
    tag = getattr(event, "tag", None)
    if tag is not None and tag not in _JSON_TAGS:
        raise _UnkubectlYamlError(mark, f"the tag {_shown_tag(tag)}")


class _OpenNodes:
    """The documents read so far, and the mappings and sequences open, innermost last."""

    def __init__(self) -> None:
        self.documents: list[Any] = []
        self.nodes: list[dict[str, Any] | list[Any]] = []
        self.keys: list[str | None] = []
        """Per open node: the key whose value a mapping waits for; None while it waits for a
        key (and for a sequence)."""

    def wants_key(self) -> bool:
        return bool(self.nodes) and isinstance(self.nodes[-1], dict) and self.keys[-1] is None

    def open(self, node: dict[str, Any] | list[Any], mark: Any) -> None:
        if self.wants_key():
            raise _UnkubectlYamlError(mark, "a mapping key that is not text")
        if len(self.nodes) >= _YAML_MAX_DEPTH:
            raise _UnkubectlYamlError(mark, f"nesting over {_YAML_MAX_DEPTH} levels deep")
        self.nodes.append(node)
        self.keys.append(None)

    def close(self, mark: Any) -> None:
        self.keys.pop()
        self.add(self.nodes.pop(), mark)

    def add(self, value: Any, mark: Any) -> None:
        """A value read: a key or a value of the innermost mapping, an item of the innermost
        sequence, or a whole document."""
        if not self.nodes:
            self.documents.append(value)
            return
        node, key = self.nodes[-1], self.keys[-1]
        if isinstance(node, list):
            node.append(value)
        elif key is not None:
            node[key] = value
            self.keys[-1] = None
        elif isinstance(value, str):
            if value in node:
                raise _UnkubectlYamlError(mark, f"the key {quoted(value)} twice in one mapping")
            self.keys[-1] = value
        else:
            raise _UnkubectlYamlError(mark, "a mapping key that is not text")


def _yaml_values(text: str) -> list[Any]:
    """The documents of ``text`` as JSON values, built from the parser's events (nothing of
    YAML's own types is built), refusing on the way what kubectl never writes
    (``_UnkubectlYamlError``): ``_refuse_unkubectl``'s, a mapping key that is not text,
    nesting over ``_YAML_MAX_DEPTH``."""
    tree = _OpenNodes()
    for event in yaml.parse(text, Loader=_PARSER):
        _refuse_unkubectl(event)
        if isinstance(event, yaml.MappingStartEvent):
            tree.open({}, event.start_mark)
        elif isinstance(event, yaml.SequenceStartEvent):
            tree.open([], event.start_mark)
        elif isinstance(event, yaml.CollectionEndEvent):
            tree.close(event.start_mark)
        elif isinstance(event, yaml.ScalarEvent):
            tree.add(_scalar(event), event.start_mark)
    return [d for d in tree.documents if d is not None]


_YAML_FIX = "give the output of kubectl ... -o yaml unchanged, or run it with -o json"


def yaml_documents(data: bytes, file: str) -> list[Any]:
    """Every document of kubectl's YAML output (``---`` separates several), as JSON values;
    shell prompts pasted around it are ignored.

    Raises ``InputError`` naming the line of the first YAML error, or of what kubectl never
    writes (``_yaml_values``: an alias, a tag not of JSON's types, a key that is not text,
    nesting too deep); a file over ``MAX_FILE_MB`` is refused before it is read.
    """
    _refuse_large_output(data, file, "YAML")
    text = tool_text(data, file).text
    try:
        documents = _yaml_values(text)
    except _UnkubectlYamlError as error:
        line, column = error.mark.line + 1, error.mark.column + 1
        message = f"YAML with {error.message} (column {column}), which kubectl never writes"
        raise InputError([InputProblem(file, line, None, message, _YAML_FIX)]) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        problem = error.problem or error.context or "cannot be read"
        where = "" if mark is None else f", column {mark.column + 1}"
        line = None if mark is None else mark.line + 1
        message = f"not valid YAML ({problem}{where})"
        raise InputError([InputProblem(file, line, None, message, _YAML_FIX)]) from None
    except yaml.YAMLError as error:
        message = f"not valid YAML ({str(error)[:120]})"
        raise InputError([InputProblem(file, None, None, message, _YAML_FIX)]) from None
    if not documents:
        raise InputError(
            [InputProblem(file, None, None, "the file is empty", "give kubectl's YAML output")]
        )
    return documents


@dataclass(frozen=True)
class KubeDocuments:
    """The documents of one kubectl output, and the form it was written in."""

    documents: list[Any]
    """JSON values: objects as dicts with text keys, arrays as lists."""
    form: Literal["JSON", "YAML"]


def kube_documents(data: bytes, file: str) -> KubeDocuments:
    """The documents of kubectl's output, JSON (``-o json``, or ``jq``'s objects) when it starts
    with ``{`` or ``[``, else YAML (``-o yaml``). Raises ``InputError`` as ``json_documents``
    and ``yaml_documents`` do (a file over its form's size limit before it is decoded)."""
    _refuse_large_output(data, file, "JSON")
    start = tool_text(data, file).text.lstrip()[:1]
    if start in ("{", "["):
        return KubeDocuments(json_documents(data, file), "JSON")
    return KubeDocuments(yaml_documents(data, file), "YAML")


def _is_kube_object(value: object) -> bool:
    """An object as kubectl writes one: a ``kind`` or a ``metadata`` object (jq may drop the
    kind)."""
    return isinstance(value, dict) and (
        bool(as_text(value.get("kind"))) or isinstance(value.get("metadata"), dict)
    )


def list_items(document: object) -> list[Any] | None:
    """The items of a list in kubectl's output: a document with a ``kind`` (``List``,
    ``NodeList``) and an ``items`` array, or an ``items`` array without a kind whose members
    are all kubectl objects (``_is_kube_object``: what ``jq '{items: [.items[] | ...]}'`` or a
    hand edit leaves). None for any other document."""
    if not isinstance(document, dict):
        return None
    items = document.get("items")
    if not isinstance(items, list):
        return None
    if "kind" in document or (items and all(_is_kube_object(i) for i in items)):
        return items
    return None


def kube_objects(documents: list[Any]) -> list[Mapping[str, Any]]:
    """The objects in documents: a list's items (``list_items``), arrays flattened, lone
    objects as they are."""
    objects: list[Mapping[str, Any]] = []
    pending = list(reversed(documents))
    while pending:
        document = pending.pop()
        items = list_items(document)
        if items is not None:
            pending.extend(reversed(items))
        elif isinstance(document, list):
            pending.extend(reversed(document))
        elif isinstance(document, dict):
            objects.append(document)
    return objects


class KubeObject(Enum):
    """What one object of kubectl's output is to the importers."""

    NODE = "node"
    """A Node: its kind says so, or, without a kind, it has ``metadata`` and ``status``
    objects and no containers."""
    NODE_LABELS = "node labels"
    """A node's label map alone, as ``jq '.items[].metadata.labels'`` prints it."""
    POD = "pod"
    """A Pod: its kind says so, or, without a kind, its ``spec`` has a ``containers`` list."""
    OTHER = "other"
    """Anything else: another kind (a Deployment, which also has metadata and status), or a
    shape neither a node's nor a pod's."""


def _is_labels(value: Mapping[str, Any]) -> bool:
    """A bare label map: text values, none of an object's keys."""
    return (
        bool(value)
        and all(isinstance(v, str) for v in value.values())
        and not ({"kind", "metadata", "status", "spec"} & set(value))
    )


def object_kind(item: Mapping[str, Any], form: Literal["JSON", "YAML"]) -> KubeObject:
    """What ``item``, an object of kubectl's ``form`` output, is: by its ``kind`` when it has
    one, else by its shape (``KubeObject``). A label map alone is a node's only in JSON (what
    jq prints): in YAML a map of text is any configuration."""
    kind = as_text(item.get("kind"))
    if kind:
        return {"Node": KubeObject.NODE, "Pod": KubeObject.POD}.get(kind, KubeObject.OTHER)
    spec = item.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("containers"), list):
        return KubeObject.POD
    if isinstance(item.get("metadata"), dict) and isinstance(item.get("status"), dict):
        return KubeObject.NODE
    if form == "JSON" and _is_labels(item):
        return KubeObject.NODE_LABELS
    return KubeObject.OTHER
