"""Tool output as text: decoding, the shell prompts of a paste, host names from file names, and
each host's output of a run over several hosts (pdsh, clush, Ansible)."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from pathlib import PurePath

from planner.inputs.importers.provenance import NoteSource
from planner.inputs.limits import MAX_HOSTS
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.tabular import TextKind, decode_file, quoted

__all__ = [
    "COUNT",
    "COUNT_SAID",
    "MAX_COUNT_DIGITS",
    "HostRun",
    "ToolText",
    "decode_text",
    "expand_node_set",
    "host_from_file_name",
    "host_outputs",
    "host_prefixed",
    "name_host",
    "tool_text",
    "whole_count",
]

_COMMANDS = frozenset(
    {
        *("nvidia-smi", "kubectl", "oc", "curl", "wget", "cat", "jq", "dcgmi", "ssh", "sudo"),
        *("pdsh", "clush", "ansible"),
    }
)
"""Commands whose output the importers read, or that run one on several hosts; a prompt line
runs one of them (or none)."""

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
    """The host a file is named after: ``gpu-node-07.txt`` → ``gpu-node-07``, and
    ``gpu-07-mig.txt`` → ``gpu-07``: a last word naming the output (``_OUTPUT_WORDS``) is not
    part of the host's name, so one host's ``-L`` and ``mig -lgi`` files name one host; a
    name that is only such words (``nvidia-smi.txt``) is kept.

    A workbook tab (``x.xlsx [vHost]``) and names without a letter or digit give None.
    """
    stem = _file_stem(file)
    if stem is None:
        return None
    if re.fullmatch(_OUTPUT_WORDS, stem, re.IGNORECASE):
        return stem
    host = re.sub(rf"[-_.]{_OUTPUT_WORDS}$", "", stem, flags=re.IGNORECASE)
    return host if re.search(r"[A-Za-z0-9]", host) else stem


def _file_stem(file: str) -> str | None:
    """A file's name without its folders and known suffixes; None without a letter or digit."""
    name = PurePath(file.split(" [", 1)[0]).name
    path = PurePath(name)
    while path.suffix.lower() in _FILE_SUFFIXES:
        path = path.with_suffix("")
    stem = path.name.strip()
    return stem if re.search(r"[A-Za-z0-9]", stem) else None


_OUTPUT_WORDS = r"(?:nvidia[-_]?smi|smi|mig|lgi|lgip|lci|lcip|query|query[-_]gpu)"
"""A last word of a file's name that names the nvidia-smi output it holds (``gpu-07-mig``,
``gpu-07_smi``), as README's examples name them, not the host."""


def name_host(text: ToolText, host_name: str | None) -> tuple[str, NoteSource, str]:
    """The host a single-host output belongs to, how it is known, and the reason.

    In order: the name given (``host_name``), the host of a ``user@host`` prompt pasted with the
    output, the file name (``gpu-node-07.txt``), else ``host`` (assumed).
    """
    if host_name:
        return host_name, "read", "the host name given for the file"
    if text.prompt_host:
        return text.prompt_host, "derived", "the host in the shell prompt pasted with the output"
    stem, named = host_from_file_name(text.file), _file_stem(text.file)
    if stem and named and stem != named:
        return (
            stem,
            "assumed",
            "the host is named after the file, without its last word "
            f"{quoted(named[len(stem) :])}, which names the output (or give the host name)",
        )
    if stem:
        return stem, "assumed", "the host is named after the file (or give the host name)"
    return "host", "assumed", "no host name in the file or its name: give the host name"


_HOST_PREFIX = re.compile(r"^(?P<host>[A-Za-z0-9][\w.-]*): (?P<line>.*)$")
"""A line as ``pdsh`` or ``clush`` print it: the host it came from, a colon and a space, then
the host's line as the command printed it (indentation kept)."""


_HOST_BLANK = re.compile(r"^(?P<host>[A-Za-z0-9][\w.-]*):$")
"""A blank line of a host as ``pdsh`` prints it (``host: ``, its trailing space stripped)."""


def host_prefixed(text: ToolText) -> dict[str, ToolText] | None:
    """Each host's lines of a ``pdsh`` or ``clush`` run (every line ``host: <line>``), the prefix
    taken off and the line numbers kept, in the order the hosts first appear; None when a
    non-blank line has no host prefix. A host's blank line (``host:``) is kept as blank when
    the host has lines of its own."""
    parts: dict[str, list[tuple[int, str]]] = {}
    blank_hosts: set[str] = set()
    for number, line in text.lines:
        if not line.strip():
            continue
        match = _HOST_PREFIX.match(line)
        blank = _HOST_BLANK.match(line) if match is None else None
        if blank is not None:
            blank_hosts.add(blank.group("host"))
            parts.setdefault(blank.group("host"), []).append((number, ""))
            continue
        if match is None:
            return None
        parts.setdefault(match.group("host"), []).append((number, match.group("line").rstrip()))
    said = {host for host, lines in parts.items() if any(line for _, line in lines)}
    if not said or not blank_hosts <= said:
        return None
    return {host: _trimmed(text.file, lines) for host, lines in parts.items()}


@dataclass(frozen=True)
class HostRun:
    """One command's output on several hosts, gathered by a tool that runs it on each (pdsh,
    clush, Ansible): each host's lines, and what the run says of the hosts that gave none."""

    tool: str
    """The gathering tool and its layout, as a message names it (``Ansible``)."""
    named_by: str
    """Where each host's name is read, as its note says it."""
    outputs: dict[str, ToolText]
    """Each host's output, line numbers those of the file, in the order the hosts appear."""
    problems: tuple[InputProblem, ...] = ()
    """Hosts the run reports failed or unreachable, and lines that are no host's output."""
    prefixed: bool = False
    """Each line carries its host (pdsh's ``host: <line>``), so that any file whose lines all
    start ``word: `` reads as such a run; a block per host is told by its headers."""


_ANSIBLE_HEADER = re.compile(
    r"^(?P<host>[^\s|]+) \| (?P<status>CHANGED|SUCCESS|FAILED!?|UNREACHABLE!?|SKIPPED|RESCUED|"
    r"IGNORED)(?: \| rc=(?P<rc>-?[0-9]{1,4}))?(?P<tail> >>| =>.*| \|.*)?\s*$"
)
"""The line opening one host's result in an Ansible ad hoc run: ``gpu01 | CHANGED | rc=0 >>``
(the command's output below it), ``gpu04 | UNREACHABLE! => {`` (a JSON result below)."""
_ANSIBLE_NOTICE = re.compile(r"^\[(WARNING|DEPRECATION WARNING|ERROR)\]:")
"""Ansible's own warnings, written among the hosts' results when its stderr is saved too."""
_ANSIBLE_RC_SUFFIX = "non-zero return code"
"""What Ansible appends to the last line of a failed command's output."""
_CLUSH_RULE = re.compile(r"^-{8,}$")
"""The rule of dashes above and below a block's host set (clush prints 15, dshbak 16)."""
_CLUSH_NODES = re.compile(r"^(?P<nodes>[A-Za-z0-9][\w.,\[\]-]*)(?: \((?P<count>[0-9]{1,6})\))?$")
"""The host set heading a block of ``clush -b`` (or ``dshbak -c``) between two rules of dashes:
``gpu[01-02] (2)``."""
_CLUSH_MESSAGE = re.compile(r"^clush: (?P<nodes>[^\s:]+)(?: \([0-9]+\))?: (?P<said>.+)$")
"""clush's own message about hosts: ``clush: gpu04: exited with exit code 255``."""
_RANGE = re.compile(r"^(?P<low>[0-9]{1,9})(?:-(?P<high>[0-9]{1,9})(?:/(?P<step>[0-9]{1,9}))?)?$")


def expand_node_set(written: str, most: int = MAX_HOSTS) -> list[str] | None:
    """The hosts of a ClusterShell host set: ``gpu[01-03,07],login1`` is gpu01, gpu02, gpu03,
    gpu07 and login1 (a range keeps its lower bound's zero padding; ``a-b/2`` steps by 2).
    None when ``written`` is no host set, or stands for more than ``most`` hosts (by default
    ``MAX_HOSTS``, an inventory's most; it keeps ``gpu[0-999999999]`` from being spelt out)."""
    hosts: list[str] = []
    for element in re.split(r",(?![^\[]*\])", written):
        pieces = re.split(r"\[([^\]]*)\]", element)
        if not element or any("[" in p or "]" in p for p in pieces[::2]):
            return None
        choices: list[list[str]] = []
        for position, piece in enumerate(pieces):
            if position % 2 == 0:
                choices.append([piece])
                continue
            numbers = _ranges(piece, most - len(hosts))
            if numbers is None:
                return None
            choices.append(numbers)
        total = 1
        for choice in choices:
            total *= len(choice)
        if len(hosts) + total > most:
            return None
        hosts.extend("".join(parts) for parts in itertools.product(*choices))
    return hosts if all(re.fullmatch(r"[A-Za-z0-9][\w.-]*", h) for h in hosts) else None


def _ranges(written: str, most: int) -> list[str] | None:
    """The numbers a host set's brackets stand for (``01-03,07``), as they are written; None
    when they are no ranges or are more than ``most``."""
    numbers: list[str] = []
    for part in written.split(","):
        match = _RANGE.match(part.strip())
        if match is None:
            return None
        low, high = match.group("low"), match.group("high") or match.group("low")
        step = int(match.group("step") or 1)
        if int(high) < int(low) or step == 0 or (int(high) - int(low)) // step + 1 > most:
            return None
        width = len(low) if low.startswith("0") else 1
        numbers.extend(str(n).zfill(width) for n in range(int(low), int(high) + 1, step))
        if len(numbers) > most:
            return None
    return numbers


def host_outputs(text: ToolText) -> HostRun | None:
    """Each host's output of a run over several hosts: ``pdsh`` or ``clush`` (every line
    ``host: <line>``, ``host_prefixed``), ``clush -b`` or ``dshbak -c`` (a block per host set
    between rules of dashes, a folded set such as ``gpu[01-03]`` giving its output to each of
    its hosts) or Ansible's ad hoc run (a ``host | CHANGED | rc=0 >>`` block per host, failed and
    unreachable hosts as problems). None when ``text`` is one host's output.

    Raises ``InputError`` for Ansible's one-line layout (``-o``), whose lines it joins."""
    prefixed = host_prefixed(text)
    if prefixed is not None:
        return HostRun(
            "pdsh or clush",
            "the host prefix pdsh or clush wrote on each of its lines",
            prefixed,
            prefixed=True,
        )
    return _ansible_run(text) or _clush_blocks(text)


def _trimmed(file: str, lines: list[tuple[int, str]]) -> ToolText:
    """One host's lines as its own output, blank lines at either end left out."""
    while lines and not lines[0][1].strip():
        lines = lines[1:]
    while lines and not lines[-1][1].strip():
        lines = lines[:-1]
    return ToolText(file, tuple(lines), None)


def _add_output(
    outputs: dict[str, ToolText],
    host: str,
    output: ToolText,
    number: int,
    tool: str,
    problems: list[InputProblem],
) -> None:
    """Add ``host``'s output at line ``number``; a second output of one host (two runs saved in
    one file) is a problem, the first read."""
    if host not in outputs:
        outputs[host] = output
        return
    problems.append(
        InputProblem(
            output.file,
            number,
            None,
            f"host {host} has a second output in this {tool} run: only its first is read",
            "give each run in its own file",
        )
    )


def _stray(file: str, number: int, line: str, tool: str) -> InputProblem:
    """The problem of a line of a run that belongs to no host (Ansible's own warning)."""
    return InputProblem(
        file,
        number,
        None,
        f"{quoted(line.strip())} is no host's output in this {tool} run: ignored",
        "give the run's output as it printed it",
    )


def _ansible_run(text: ToolText) -> HostRun | None:
    """The hosts' outputs of an Ansible ad hoc run (``ansible GROUP -a "nvidia-smi -L"``)."""
    lines = [(n, line) for n, line in text.lines if line.strip()]
    first = next((line for _, line in lines if not _ANSIBLE_NOTICE.match(line)), "")
    if _ANSIBLE_HEADER.match(first) is None:
        return None
    tool = "Ansible"
    problems: list[InputProblem] = []
    blocks: list[tuple[int, re.Match[str], list[tuple[int, str]]]] = []
    for number, line in text.lines:
        header = _ANSIBLE_HEADER.match(line)
        if header is not None:
            if (header.group("tail") or "").startswith(" |"):
                raise InputError(
                    [
                        InputProblem(
                            text.file,
                            number,
                            None,
                            "Ansible's one-line output (-o), which joins each host's lines "
                            "into one: it is not read",
                            "run the ansible command again without -o (--one-line) and give "
                            "what it prints",
                        )
                    ]
                )
            blocks.append((number, header, []))
        elif _ANSIBLE_NOTICE.match(line) or not blocks:
            if line.strip():
                problems.append(_stray(text.file, number, line, tool))
        else:
            blocks[-1][2].append((number, line))
    outputs: dict[str, ToolText] = {}
    for number, header, body in blocks:
        host, status = header.group("host"), header.group("status").rstrip("!")
        said = _ansible_failure(header, body)
        if said is None:
            _add_output(outputs, host, _trimmed(text.file, body), number, tool, problems)
            continue
        problems.append(
            InputProblem(
                text.file,
                number,
                None,
                f"host {host}: Ansible reports it {status}: {said}; the host is left out",
                (
                    f"check that {host} is up and reachable (ssh {host}), run the command on it "
                    "again and give its output"
                    if status == "UNREACHABLE"
                    else f"run the command on {host} again where it works (as its output says) "
                    "and give what it prints"
                )
                + ", or give the host in an inventory CSV",
            )
        )
    return HostRun(
        tool,
        "the host named in Ansible's result header ('host | CHANGED | rc=0 >>')",
        outputs,
        tuple(problems),
    )


_REASON_CHARS = 200
"""Most characters of a failed host's reason line a problem quotes."""


def _ansible_failure(header: re.Match[str], body: list[tuple[int, str]]) -> str | None:
    """What a failed or unreachable host's result says, quoted (its first line, or its JSON's
    ``msg``); None when the command ran (``rc=0``) and printed its output."""
    status = header.group("status").rstrip("!")
    rc = header.group("rc")
    if status in ("CHANGED", "SUCCESS") and (header.group("tail") or "").strip() == ">>":
        return None
    tail = (header.group("tail") or "").strip()
    written = "\n".join(line for _, line in body).strip()
    if tail.startswith("=>"):
        # The result's JSON opens on the header line: 'gpu04 | UNREACHABLE! => {'.
        written = tail.removeprefix("=>").strip() + "\n" + written
        try:
            result = json.loads(written)
        except ValueError:
            result = None
        if isinstance(result, dict) and result.get("msg"):
            written = str(result["msg"])
        elif status in ("CHANGED", "SUCCESS"):
            return "a module's result, not a command's output (run it with -a COMMAND)"
    reason = next((line.strip() for line in written.split("\n") if line.strip()), "")
    reason = reason.removesuffix(_ANSIBLE_RC_SUFFIX).strip() or "no output"
    # A tool's line, not a value the user typed: shown longer than ``quoted`` shows one.
    return (f"rc={rc}, " if rc else "") + f"'{reason[:_REASON_CHARS]}'"


def _clush_blocks(text: ToolText) -> HostRun | None:
    """The hosts' outputs of ``clush -b`` (or ``dshbak -c``): each block's output belongs to
    every host of the host set heading it."""
    lines = text.lines
    headers = [
        position
        for position in range(len(lines) - 2)
        if _CLUSH_RULE.match(lines[position][1])
        and _CLUSH_NODES.match(lines[position + 1][1])
        and _CLUSH_RULE.match(lines[position + 2][1])
    ]
    if not headers or any(
        line.strip()
        for _, line in lines[: headers[0]]
        if not _CLUSH_MESSAGE.match(line) and not _HOST_PREFIX.match(line)
    ):
        return None
    tool = "clush -b"
    problems: list[InputProblem] = []
    outputs: dict[str, ToolText] = {}
    # Above the first block: clush's messages, or hosts' errors it printed as they came.
    problems.extend(
        _clush_failure(text.file, number, line)
        for number, line in lines[: headers[0]]
        if line.strip()
    )
    ends = [*headers[1:], len(lines)]
    for start, end in zip(headers, ends, strict=True):
        number, heading = lines[start + 1]
        nodes = _CLUSH_NODES.match(heading)
        assert nodes is not None  # headers were chosen by this match
        hosts = expand_node_set(nodes.group("nodes"), MAX_HOSTS - len(outputs))
        count = nodes.group("count")
        if hosts is None or (count is not None and int(count) != len(hosts)):
            problems.append(
                InputProblem(
                    text.file,
                    number,
                    None,
                    f"the host set {quoted(heading)} "
                    + (
                        f"stands for {len(hosts)} hosts, not {count}"
                        if hosts is not None
                        else "is no host set of clush, or takes the run past "
                        f"{MAX_HOSTS:,} hosts (an inventory's most)"
                    )
                    + ": its output is left out",
                    "give the run's output as clush printed it, or each host's output in its own "
                    "file named after the host",
                )
            )
            continue
        body = []
        for line_number, line in lines[start + 3 : end]:
            if _CLUSH_MESSAGE.match(line):
                problems.append(_clush_failure(text.file, line_number, line))
            else:
                body.append((line_number, line))
        for host in hosts:
            _add_output(outputs, host, _trimmed(text.file, body), number, tool, problems)
    return HostRun(
        tool,
        "the host set heading its block of clush -b output (gpu[01-02]: gpu01 and gpu02)",
        outputs,
        tuple(problems),
    )


def _clush_failure(file: str, number: int, line: str) -> InputProblem:
    """clush's message about a host (``clush: gpu04: exited with exit code 255``), or a host's
    error line clush printed as it came (``gpu04: ssh: connect to host gpu04 port 22: ...``)."""
    message = _CLUSH_MESSAGE.match(line) or _HOST_PREFIX.match(line)
    assert message is not None  # the caller matched one of them
    hosts = message.groupdict().get("nodes") or message.group("host")
    said = message.groupdict().get("said") or message.group("line")
    return InputProblem(
        file,
        number,
        None,
        f"host {hosts}: clush reports '{said.strip()[:_REASON_CHARS]}'",
        f"check that {hosts} is up and that the command works there, run it again and give its "
        "output, or give the host in an inventory CSV",
    )
