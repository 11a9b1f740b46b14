"""The shipped breakers (``breakers/``): each file listed in breakers/README.md, and each
listed file a valid tree whose total and worst case, found by replaying every code
against the game's own scoring, are the ones the table states."""

from __future__ import annotations

import codecs
import gzip
import re
from pathlib import Path

import numpy as np
import pytest

from evo.core.files import json_head
from evo.core.game import game_from_spec
from evo.core.treeio import is_tree_name, load_tree

FOLDER = Path(__file__).resolve().parent.parent / "breakers"


def rows() -> dict[str, list[str]]:
    """File name -> the cells of its row in the README's table."""
    found = {}
    for line in (FOLDER / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and is_tree_name(cells[0]):
            found[cells[0]] = cells
    return found


def stated_game(path: Path) -> dict:
    """The game a shipped tree file states before its nodes, read from its first 64 kB
    (its nodes, megabytes of them, left unread and unparsed)."""
    with gzip.open(path) if path.suffix == ".gz" else path.open("rb") as file:
        start = file.read(1 << 16)
    text = codecs.getincrementaldecoder("utf-8")().decode(start)  # a cut character left out
    members, came = json_head(text, stop="root", where=str(path), error=ValueError)
    assert members is not None and came and "game" in members, path
    return members["game"]


def listed() -> dict[str, tuple[int, int]]:
    """File name -> (total, worst) from the README's table."""
    return {name: (int(cells[2]), int(cells[4])) for name, cells in rows().items()}


def replay(tree) -> tuple[int, int]:
    """(total, worst) by playing every code from the root: score the guess against the
    secret, follow the branch of that feedback, until the guess is the secret (all the
    secrets a move at a time, so that the biggest games replay in seconds)."""
    game = tree.game
    child = tree.child_table
    secrets = game.all_codes().astype(np.int64)
    node = np.zeros(len(secrets), dtype=np.int64)
    moves = np.zeros(len(secrets), dtype=np.int64)
    playing = np.arange(len(secrets))
    for move in range(1, 30):
        guess = tree.guess[node[playing]].astype(np.int64)
        found = guess == secrets[playing]
        moves[playing[found]] = move
        playing, guess = playing[~found], guess[~found]
        if len(playing) == 0:
            return int(moves.sum()), int(moves.max())
        fb = game.compute_feedback(guess, secrets[playing])
        node[playing] = child[node[playing], fb]
        lost = node[playing] < 0
        assert not lost.any(), f"no branch for {game.format_feedback(int(fb[lost][0]))}"
    raise AssertionError("a code is not found within 29 guesses")


def test_every_file_is_listed_and_every_listed_file_exists():
    files = {p.name for p in FOLDER.iterdir() if p.is_file() and is_tree_name(p)}
    files -= {"bounds.json"}  # bounds, not trees
    assert files and files == set(listed())


#: Listed files that take over about 2 s to load and replay here (slow: not in `make test-fast`).
SLOW_REPLAYS = {"mastermind-5-8.json"}


def _replays() -> list:
    """The listed files; the big ones (stored gzipped, each over 250,000 codes, seconds to
    load and replay) are heavy: `make test-heavy` replays them."""
    return [
        pytest.param(name, marks=pytest.mark.heavy)
        if name.endswith(".gz")
        else pytest.param(name, marks=pytest.mark.slow)
        if name in SLOW_REPLAYS
        else name
        for name in sorted(listed())
    ]


@pytest.mark.parametrize("name", _replays())
def test_shipped_breaker_has_the_stated_total(name):
    tree = load_tree(FOLDER / name)  # checks the structure and the file's own summary
    total, worst = listed()[name]
    assert replay(tree) == (total, worst)
    assert (tree.total, tree.worst) == (total, worst)
    assert np.all(tree.count >= 1)


@pytest.mark.parametrize("name", sorted(n for n, c in rows().items() if "secrets need" in c[-1]))
def test_stated_secrets_at_the_worst_case(name):
    """A row that says how many secrets need the worst case is right about it."""
    stated = re.search(r"(\d+) secrets need (\d+) guesses", rows()[name][-1])
    assert stated, rows()[name][-1]
    tree = load_tree(FOLDER / name)
    assert (tree.at_worst, tree.worst) == (int(stated[1]), int(stated[2]))


def test_the_best_total_at_each_worst_case_is_the_files():
    """The per-worst-case table: each line's file has that worst case and that total, and
    a game's lower worst case never shows a lower total."""
    seen: dict[str, list[tuple[int, int]]] = {}
    for line in (FOLDER / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or is_tree_name(cells[0]) or not is_tree_name(cells[3]):
            continue
        worst, total = int(cells[1]), int(re.match(r"\d+", cells[2])[0])
        assert listed()[cells[3]] == (total, worst), line
        seen.setdefault(cells[0], []).append((worst, total))
    assert len(seen) >= 7
    for pairs in seen.values():
        pairs.sort()
        assert all(a[1] >= b[1] for a, b in zip(pairs, pairs[1:])), pairs


#: A row's status: optimal (the optimum recorded for its game), optimal of a worst case,
#: best known, or a record below the best published total, each with its source.
STATUS = re.compile(
    r"optimal \(of worst case (?P<worst>\d+); |optimal \(|best known \(|"
    r"record \(below (?P<below>\d{1,3}(?:,\d{3})*), "
)


def test_a_breaker_of_a_recorded_optimum_totals_it_and_none_is_below_one():
    """A row that says "optimal" states the optimum recorded for its game (published, or
    proved by evo's exact search), and no shipped breaker totals less than its game's
    recorded optimum (that would make one of the two false); "optimal (of worst case N"
    is said of a file of that worst case, and a record is below the best total it names,
    the one recorded for its game where no optimum is."""
    from evo.baselines import known_optimum

    optimal_rows = records = 0
    for name, cells in rows().items():
        total, worst, status = int(cells[2]), int(cells[4]), cells[5]
        # The file's game from its start, its nodes left unread (the shipped trees load in
        # the slow test above: minutes).
        known = known_optimum(game_from_spec(stated_game(FOLDER / name)))
        optimum = known.total if known is not None and known.proved else None
        if optimum is not None:
            assert total >= optimum, name
        stated = STATUS.match(status)
        assert stated, f"{name}: status {status!r}"
        if stated["worst"] is not None:
            assert worst == int(stated["worst"]), name
        elif status.startswith("optimal"):
            assert optimum is not None and total == optimum, name
            optimal_rows += 1
        elif stated["below"] is not None:
            below = int(stated["below"].replace(",", ""))
            assert total < below, name
            if known is not None and not known.proved:
                assert below == known.total, name
            records += 1
    assert optimal_rows >= 10  # (4,6) to (5,7), Bulls and Cows, Wordle
    assert records >= 4  # (5,8), (6,8), (6,9), (7,7)
