"""Tool output as text: decoding, the shell prompts of a paste, and host names from file names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

from planner.inputs.importers.provenance import NoteSource
from planner.inputs.tabular import TextKind, decode_file

__all__ = [
    "COUNT",
    "COUNT_SAID",
    "MAX_COUNT_DIGITS",
    "ToolText",
    "decode_text",
    "host_from_file_name",
    "host_prefixed",
    "name_host",
    "tool_text",
    "whole_count",
]

_COMMANDS = frozenset(
    {"nvidia-smi", "kubectl", "oc", "curl", "wget", "cat", "jq", "dcgmi", "ssh", "sudo", "pdsh"}
)
"""Commands whose output the importers read; a prompt line runs one of them (or none)."""

_PROMPT = re.compile(
    r"^\s*(?:\([\w.-]+\)\s*)?"  # a conda or virtualenv name: (base)
    r"(?:"
    r"\[?[\w.-]+@(?P<host>[\w.-]+)(?:[: ][^\s$#%>\]]*)?\]?\s*[$#%>]"  # user@host:~$, [u@h ~]#
    r"|PS [^>]*>"  # PowerShell
    r"|[$#%>]"  # a bare prompt
    r")(?:\s+(?P<command>.*))?$"
)
_FILE_SUFFIXES = frozenset(
    {".txt", ".csv", ".log", ".out", ".json", ".prom", ".metrics", ".xlsx", ".xml", ".yaml", ".yml"}
)


_TOOL_TEXT = TextKind(
    "the text a tool prints",
    "give the tool's output saved as text (redirect it with > file.txt)",
    "save it as UTF-8: redirect a tool's output with > file.txt, or in Excel use File > Save "
    "As > CSV UTF-8",
    "save the tool's whole output again (redirect it with > file.txt) and give that file",
)
"""A tool's output saved to a file (or pasted), as the importers read it."""


_NO_BREAK_SPACES = str.maketrans(dict.fromkeys("\u00a0\u2007\u202f", " "))
"""No-break spaces (plain, figure, narrow), which a web page, a chat or a mail client puts in
place of spaces when tool output is copied from it; a tool prints plain spaces."""


def decode_text(data: bytes, file: str) -> str:
    """The text of a tool's output file, decoded as the planner's CSV files are
    (``tabular.decode_file``: UTF-8, or UTF-16 with or without its byte-order mark); newlines
    are normalised to ``\\n`` and no-break spaces to spaces (output copied from a web page).

    Raises ``InputError`` for binary data or another encoding.
    """
    text = decode_file(data, file, _TOOL_TEXT)
    return text.replace("\r\n", "\n").replace("\r", "\n").translate(_NO_BREAK_SPACES)


MAX_COUNT_DIGITS = 9
"""Most digits of a count or an id a tool prints (a GPU index, a MIG instance id, SMs) or the
user types (GPUs per host) [digits]: a billion is past any machine, and Python's ``int`` reads
at most 4,300."""
COUNT = f"[0-9]{{1,{MAX_COUNT_DIGITS}}}"
r"""A count or an id in a regular expression: digits 0-9 only, at most ``MAX_COUNT_DIGITS``.
``\d`` also takes other scripts' digits, and ``str.isdigit`` is true of ``²``, which ``int``
refuses."""
COUNT_SAID = f"a whole number in digits 0-9 (at most {MAX_COUNT_DIGITS})"
"""What a count or an id must be, as a problem says it."""
_COUNT = re.compile(COUNT)


def whole_count(text: str | None) -> int | None:
    """``text``, spaces around it aside, as a whole number when it is one (``COUNT``); else
    None, for the caller to say so (``COUNT_SAID``)."""
    stripped = (text or "").strip()
    return int(stripped) if _COUNT.fullmatch(stripped) else None


def _prompt(line: str) -> tuple[bool, str | None]:
    """Whether ``line`` is a shell prompt (alone or running a known command), and its host."""
    match = _PROMPT.match(line)
    if match is None:
        return False, None
    command = (match.group("command") or "").split()
    while command and command[0] in {"sudo", "time", "env"}:
        command = command[1:]
    if command and PurePath(command[0]).name not in _COMMANDS:
        return False, None
    return True, match.group("host")


@dataclass(frozen=True)
class ToolText:
    """A tool's output without the shell prompts pasted around it."""

    file: str
    lines: tuple[tuple[int, str], ...]
    """(line number in the file, 1-based; text without the newline), prompt lines and blank lines
    at either end left out, and the indentation every line shares taken off (output copied from
    a code block of a web page or a document, indented as a whole)."""
    prompt_host: str | None
    """The host a ``user@host`` prompt line names, when the paste has one."""

    @property
    def text(self) -> str:
        """The kept lines, with a blank line for each line left out, so line numbers hold."""
        if not self.lines:
            return ""
        kept = dict(self.lines)
        return "\n".join(kept.get(n, "") for n in range(1, self.lines[-1][0] + 1))


def tool_text(data: bytes, file: str) -> ToolText:
    """The lines of a tool's output (see ``ToolText``); raises ``InputError`` if not text."""
    raw = decode_text(data, file).split("\n")
    kept: list[tuple[int, str]] = []
    host = None
    for number, line in enumerate(raw, start=1):
        is_prompt, prompt_host = _prompt(line)
        if is_prompt:
            host = host or prompt_host
            continue
        kept.append((number, line.rstrip()))
    while kept and not kept[0][1].strip():
        kept.pop(0)
    while kept and not kept[-1][1].strip():
        kept.pop()
    return ToolText(file, _without_shared_indent(kept), host)


def _without_shared_indent(lines: list[tuple[int, str]]) -> tuple[tuple[int, str], ...]:
    """``lines`` without the leading spaces and tabs every non-blank line starts with; the
    indentation of a line relative to the others (``nvidia-smi -q``'s sections, ``-L``'s MIG
    lines) is kept."""
    indents = [line[: len(line) - len(line.lstrip(" \t"))] for _, line in lines if line.strip()]
    shared = min(indents, key=len, default="")
    while not all(indent.startswith(shared) for indent in indents):
        shared = shared[:-1]
    if not shared:
        return tuple(lines)
    return tuple((number, line[len(shared) :] if line.strip() else "") for number, line in lines)


def host_from_file_name(file: str) -> str | None:
    """The host a file is named after: ``gpu-node-07.txt`` → ``gpu-node-07``.

    A workbook tab (``x.xlsx [vHost]``) and names without a letter or digit give None.
    """
    name = PurePath(file.split(" [", 1)[0]).name
    path = PurePath(name)
    while path.suffix.lower() in _FILE_SUFFIXES:
        path = path.with_suffix("")
    stem = path.name.strip()
    return stem if re.search(r"[A-Za-z0-9]", stem) else None


def name_host(text: ToolText, host_name: str | None) -> tuple[str, NoteSource, str]:
    """The host a single-host output belongs to, how it is known, and the reason.

    In order: the name given (``host_name``), the host of a ``user@host`` prompt pasted with the
    output, the file name (``gpu-node-07.txt``), else ``host`` (assumed).
    """
    if host_name:
        return host_name, "read", "the host name given for the file"
    if text.prompt_host:
        return text.prompt_host, "derived", "the host in the shell prompt pasted with the output"
    stem = host_from_file_name(text.file)
    if stem:
        return stem, "assumed", "the host is named after the file (or give the host name)"
    return "host", "assumed", "no host name in the file or its name: give the host name"


_HOST_PREFIX = re.compile(r"^(?P<host>[A-Za-z0-9][\w.-]*): (?P<line>.*)$")
"""A line as ``pdsh`` or ``clush`` print it: the host it came from, a colon and a space, then
the host's line as the command printed it (indentation kept)."""


def host_prefixed(text: ToolText) -> dict[str, ToolText] | None:
    """Each host's lines of a ``pdsh`` or ``clush`` run (every line ``host: <line>``), the prefix
    taken off and the line numbers kept, in the order the hosts first appear; None when a
    non-blank line has no host prefix."""
    parts: dict[str, list[tuple[int, str]]] = {}
    for number, line in text.lines:
        if not line.strip():
            continue
        match = _HOST_PREFIX.match(line)
        if match is None:
            return None
        parts.setdefault(match.group("host"), []).append((number, match.group("line").rstrip()))
    if not parts:
        return None
    return {host: ToolText(text.file, tuple(lines), None) for host, lines in parts.items()}
