"""Every command the docs show works as a new user would run it (issue 66): the wheel built
from this checkout in a new venv, with empty ``EVO_CACHE`` and ``NUMBA_CACHE_DIR``, and each
shell block of README.md and docs/*.md run from an empty folder with that venv's ``evo``
first on the PATH.

A block is a fenced ```sh, ```bash or ```console block, or any fenced block whose lines
start with a ``$ `` prompt (then only those lines are commands). The line before a block may
mark it:

- ``<!-- run: checkout -->``: it needs the checkout (``make``, ``scripts/``, files of
  ``configs/`` by path), so it runs in a copy of the checkout's tracked files, as a clone
  has them, whose ``.venv`` is the new venv;
- ``<!-- run: no: REASON -->``: it must not run here (a search of hours, a cluster's
  address, the package index); the reason is said in the mark. These are kept few.

Commands run as written, never edited: a long one is bounded in the block itself (``--set
stop.seconds=10``, ``--seconds 60``). A failure names the file, the line, the command and
its standard error.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import test_package

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: The wheel in a new venv (tests/test_package.py builds it; one build for this module).
installed = test_package.installed

#: Fenced blocks of these languages are shell blocks, prompts or not.
SHELLS = {"sh", "bash", "console", "shell", "shell-session"}
#: What a line of a block that must be run starts with.
COMMAND = re.compile(r"^(\$ |(\S+=\S*\s+)*(evo|make|pip|python|dask|\.venv/bin/\S+)(\s|$))")
MARK = re.compile(r"^<!--\s*run:\s*(?P<kind>[\w-]+)\s*:?\s*(?P<reason>.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
#: Marks `no`: at most this many blocks may be left unrun.
MOST_UNRUN = 8
#: Seconds one block may take on the 2 shared cores (the safety net, not its bound: a
#: block's own commands bound themselves).
BLOCK_SECONDS = 1500
#: Written to standard error before each command: the line it is on.
STEP = "@@doc-command-line "


@dataclass(frozen=True)
class Command:
    """One command of a block: the line it starts on and its text (continued lines joined
    by their backslash-newline, as the shell reads them)."""

    line: int
    text: str


@dataclass(frozen=True)
class Block:
    """A shell block of a Markdown file: where its fence opens, its mark (``""`` when
    none, ``checkout`` or ``no``) and the reason given in the mark, and its commands."""

    path: Path
    line: int
    lang: str
    mark: str
    reason: str
    commands: tuple[Command, ...]

    @property
    def where(self) -> str:
        """``FILE:LINE`` of the block's opening fence, the file relative to the checkout."""
        return f"{self.path.relative_to(ROOT)}:{self.line}"


@dataclass(frozen=True)
class Parsed:
    """What a Markdown file holds that concerns its commands: the shell blocks, the marks
    not followed by one (their lines), the other fenced blocks' lines that look like
    commands, and the indented code lines that do."""

    blocks: tuple[Block, ...]
    stray_marks: tuple[int, ...]
    commands_elsewhere: tuple[int, ...]


def _commands(body: list[tuple[int, str]]) -> tuple[Command, ...]:
    """The commands of a block's lines: after a ``$ `` prompt when it has any, else every
    line but blank ones and comments; a line ending in a backslash goes on."""
    prompted = any(text.lstrip().startswith("$ ") for _, text in body)
    out: list[Command] = []
    pending: tuple[int, list[str]] | None = None
    for number, text in body:
        text = text.strip()
        if pending is not None:
            pending[1].append(text.removeprefix("> "))
        elif prompted and text.startswith("$ "):
            pending = (number, [text[2:]])
        elif not prompted and text and not text.startswith("#"):
            pending = (number, [text])
        else:
            continue
        if not text.endswith("\\"):
            out.append(Command(pending[0], "\n".join(pending[1])))
            pending = None
    if pending is not None:
        out.append(Command(pending[0], "\n".join(pending[1])))
    return tuple(out)


def parse(path: Path, text: str | None = None) -> Parsed:
    """The shell blocks of the Markdown file ``path`` (or of ``text``, read as that file)."""
    lines = (path.read_text(encoding="utf-8") if text is None else text).splitlines()
    blocks: list[Block] = []
    stray: list[int] = []
    elsewhere: list[int] = []
    mark: tuple[int, str, str] | None = None  # its line, kind, reason
    i = 0
    while i < len(lines):
        number, line = i + 1, lines[i]
        opened = FENCE.match(line)
        if opened is None:
            if mark is not None:
                stray.append(mark[0])
            found = MARK.match(line.strip())
            mark = (number, found["kind"], found["reason"]) if found else None
            previous = lines[i - 1] if i else ""
            if (
                re.match(r"^( {4,}|\t)", line)
                and not previous.strip()
                and (COMMAND.match(line.strip()))
            ):
                elsewhere.append(number)  # an indented code block holding a command
            i += 1
            continue
        fence = opened["fence"]
        body: list[tuple[int, str]] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append((i + 1, lines[i]))
            i += 1
        i += 1  # the closing fence
        lang = opened["lang"].lower()
        if lang in SHELLS or any(t.lstrip().startswith("$ ") for _, t in body):
            kind, reason = (mark[1], mark[2]) if mark else ("", "")
            blocks.append(Block(path, number, lang, kind, reason, _commands(body)))
        else:
            if mark is not None:
                stray.append(mark[0])
            elsewhere += [n for n, t in body if COMMAND.match(t.strip())]
        mark = None
    if mark is not None:
        stray.append(mark[0])
    return Parsed(tuple(blocks), tuple(stray), tuple(elsewhere))


def all_blocks() -> list[Block]:
    """Every shell block of README.md and docs/*.md, in the order of the files."""
    return [b for path in DOCS for b in parse(path).blocks]


# ---------------------------------------------------------------------------- light tests


def test_the_parser_reads_blocks_prompts_and_marks(tmp_path):
    """On a Markdown text written for it: a ```sh block (comments dropped, a continued line
    joined), a ```console block (only the prompted lines), a plain fence with a prompt, a
    marked block with its reason, a stray mark, and commands outside any shell block."""
    text = "\n".join(
        [
            "# Title",  # 1
            "```sh",  # 2
            "# a comment",  # 3
            "evo run quick \\",  # 4
            "  --set stop.seconds=10   # short",  # 5
            "",  # 6
            "evo breakers",  # 7
            "```",  # 8
            "<!-- run: no: a cluster's address -->",  # 9
            "```console",  # 10
            "$ evo bound -n 3 -c 4",  # 11
            "mastermind-3-4: the optimum is 206",  # 12
            "```",  # 13
            "<!-- run: checkout -->",  # 14
            "Some prose.",  # 15
            "```",  # 16
            "$ make run",  # 17
            "output",  # 18
            "```",  # 19
            "```text",  # 20
            "evo play wordle",  # 21
            "```",  # 22
            "",  # 23
            "    evo render x.json",  # 24
            "<!-- run: checkout -->",  # 25
        ]
    )
    parsed = parse(tmp_path / "x.md", text)
    first, second, third = parsed.blocks
    assert (first.line, first.lang, first.mark) == (2, "sh", "")
    assert first.commands == (
        Command(4, "evo run quick \\\n--set stop.seconds=10   # short"),
        Command(7, "evo breakers"),
    )
    assert (second.line, second.mark, second.reason) == (10, "no", "a cluster's address")
    assert second.commands == (Command(11, "evo bound -n 3 -c 4"),)
    assert (third.line, third.lang, third.mark) == (16, "", "")
    assert third.commands == (Command(17, "make run"),)
    assert parsed.stray_marks == (14, 25)
    assert parsed.commands_elsewhere == (21, 24)


def test_every_block_of_the_docs_is_run_or_marked():
    """A new command block cannot slip in unseen: every block that shows commands is a
    shell block the heavy test runs (or one marked, with a mark it knows), no mark hangs
    loose, a block that needs the checkout says so, few are left unrun and each says why,
    and every run a run block starts bounds its time."""
    blocks = all_blocks()
    assert {b.path.name for b in blocks} >= {"README.md", "BOUND.md", "PYPI.md"}
    for path in DOCS:
        parsed = parse(path)
        where = path.relative_to(ROOT)
        assert not parsed.stray_marks, f"{where}:{parsed.stray_marks}: a mark on no shell block"
        assert not parsed.commands_elsewhere, (
            f"{where}:{parsed.commands_elsewhere}: commands outside a ```sh or ```console block"
        )
    for block in blocks:
        assert block.mark in ("", "checkout", "no"), f"{block.where}: mark {block.mark!r}"
        assert block.commands, f"{block.where}: a shell block with no command"
        if block.mark == "no":
            assert len(block.reason) >= 10, f"{block.where}: say why it is not run"
            continue
        for command in block.commands:
            text = command.text
            needs = re.search(r"(^|\s)(make\s|\.venv/|scripts/|configs/)", text)
            assert block.mark == "checkout" or not needs, (
                f"{block.path.relative_to(ROOT)}:{command.line}: {text!r} needs the checkout:"
                " mark the block <!-- run: checkout -->"
            )
            if re.match(r"evo (run|resume)\b", text):
                assert "stop.seconds=" in text, f"{command.line}: {text!r} is not bounded"
    unrun = [b.where for b in blocks if b.mark == "no"]
    assert len(unrun) <= MOST_UNRUN, unrun


# ---------------------------------------------------------------------------- the heavy run


@pytest.fixture(scope="module")
def user(installed, tmp_path_factory) -> dict[str, str]:
    """The environment of a new user of the wheel: its ``evo`` first on the PATH, an empty
    home, empty ``EVO_CACHE`` and ``NUMBA_CACHE_DIR`` (shared by every block, as one user's
    are: the first command compiles)."""
    where = tmp_path_factory.mktemp("doc-user")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{installed / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    for name, folder in (("HOME", "home"), ("EVO_CACHE", "evo"), ("NUMBA_CACHE_DIR", "numba")):
        (where / folder).mkdir()
        env[name] = str(where / folder)
    return env


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    """An empty folder per Markdown file (its blocks may use what its earlier ones wrote)."""
    return {p.name: tmp_path_factory.mktemp(f"doc-{p.stem}") for p in DOCS}


@pytest.fixture(scope="module")
def checkout(installed, tmp_path_factory) -> Path:
    """The checkout's tracked files (as a clone has them, with this working tree's
    changes), its ``.venv`` the new venv, made up to date for ``make``. Its ``evo/`` is
    left out: ``python -c`` there (``make kernels``) imports the wheel's evo, the one the
    other blocks run, which compiles once."""
    where = tmp_path_factory.mktemp("doc-checkout")
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    for name in filter(None, tracked):
        if (ROOT / name).is_file() and not name.startswith("evo/"):
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, where / name)
    (where / ".venv").symlink_to(installed, target_is_directory=True)
    (installed / ".installed").touch()  # set up: make's stamp, newer than pyproject.toml
    return where


def _failure(block: Block, code: int | str, stderr: str, stdout: str) -> str:
    """The message of a failed block: the file, the line and the command that failed,
    its exit status, its standard error (and the end of the block's output)."""
    *_, last = stderr.split(STEP)
    number, _, own = last.partition("\n")
    line = int(number) if number.isdigit() else block.line
    command = next((c.text for c in block.commands if c.line == line), "?")
    rel = block.path.relative_to(ROOT)
    return (
        f"{rel}:{line}: `{command}` failed ({code})\n--- its standard error:\n"
        f"{own[-4000:]}\n--- the block's standard output, its end:\n{stdout[-1500:]}"
    )


def _text(out: str | bytes | None) -> str:
    """A timed-out run's output as text (``TimeoutExpired`` may hold bytes)."""
    return out.decode(errors="replace") if isinstance(out, bytes) else out or ""


@pytest.mark.heavy
@pytest.mark.xdist_group("doc-commands")  # in document order, one user, one wheel
@pytest.mark.parametrize(
    "block", [b for b in all_blocks() if b.mark != "no"], ids=lambda b: b.where
)
def test_the_docs_commands_run_from_the_wheel(block, user, folders, checkout):
    """The block's commands, run by bash (``set -euo pipefail``) as written, one after the
    other, in the file's empty folder, or in the checkout when it is marked so."""
    cwd = checkout if block.mark == "checkout" else folders[block.path.name]
    script = ["set -euo pipefail"]
    for command in block.commands:
        script += [f"printf '\\n{STEP}%s\\n' {command.line} >&2", command.text]
    start = time.monotonic()
    try:
        res = subprocess.run(
            ["bash", "-c", "\n".join(script)], cwd=cwd, env=user, capture_output=True,
            text=True, timeout=BLOCK_SECONDS,
        )  # fmt: skip
    except subprocess.TimeoutExpired as stop:
        why = f"still running after {BLOCK_SECONDS} s"
        pytest.fail(_failure(block, why, _text(stop.stderr), _text(stop.stdout)))
    print(f"{block.where}: {time.monotonic() - start:.0f} s")
    assert res.returncode == 0, _failure(block, res.returncode, res.stderr, res.stdout)
