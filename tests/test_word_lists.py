"""Wordle on any word list (issue 65 item 4): ``--answers FILE --guesses FILE`` and
``wordle_game(answers=..., guesses=...)``. The optimum of a list of our own is checked
against a brute force written here, in both modes; a game of other lists is named by
their digest, so that no tree, certificate, cache file or known optimum of one list is
taken for another's; a bad list is one line naming the file and line, exit status 2."""

from __future__ import annotations

import json
import pickle
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from evo.baselines.known import known_optimum
from evo.cli import main
from evo.core.game import UnknownGameError, game_from_spec, make_game, spec_key
from evo.core.treeio import TreeFileError, load_tree
from evo.games.words import (
    SPEC_WORDS_UP_TO,
    WordListError,
    load_words,
    word_lists,
    wordle_game,
)

SHIPPED = load_words()


# ---------------------------------------------------------------- an independent oracle
def colours(guess: str, secret: str) -> tuple[int, ...]:
    """Wordle's colours (0 green, 1 yellow, 2 grey) by the game's rule, written anew: the
    greens first, then left to right a letter is yellow while the secret has unmatched
    copies of it."""
    out = [2] * 5
    left: dict[str, int] = {}
    for g, s in zip(guess, secret):
        if g != s:
            left[s] = left.get(s, 0) + 1
    for i, (g, s) in enumerate(zip(guess, secret)):
        if g == s:
            out[i] = 0
    for i, g in enumerate(guess):
        if out[i] and left.get(g, 0) > 0:
            out[i] = 1
            left[g] -= 1
    return tuple(out)


def brute_optimum(answers: list[str], guesses: list[str], *, hard: bool) -> int:
    """The least total number of guesses over every answer, by plain recursion over the
    sets of answers left (memo over frozensets; in hard mode over the set and what was
    revealed: the green letter of each place and the least count of each letter shown
    green or yellow, which every later guess must keep)."""
    fb = {(g, s): colours(g, s) for g in guesses for s in answers}
    win = (0,) * 5
    memo: dict = {}

    def legal(g: str, state) -> bool:
        greens, least = state
        return all(c is None or g[i] == c for i, c in enumerate(greens)) and all(
            g.count(c) >= n for c, n in least
        )

    def after(state, g: str, f: tuple[int, ...]):
        greens, least = state
        greens = tuple(g[i] if f[i] == 0 else c for i, c in enumerate(greens))
        counts = dict(least)
        for c in set(g):
            shown = sum(1 for i in range(5) if g[i] == c and f[i] != 2)
            counts[c] = max(counts.get(c, 0), shown)
        return greens, tuple(sorted((c, n) for c, n in counts.items() if n))

    def cost(codes: frozenset, state) -> int:
        if len(codes) == 1:
            return 1
        key = (codes, state)
        if key not in memo:
            best = None
            for g in guesses:
                if hard and not legal(g, state):
                    continue
                parts: dict[tuple[int, ...], list[str]] = {}
                for s in codes:
                    parts.setdefault(fb[g, s], []).append(s)
                if len(parts) == 1 and g not in codes:
                    continue  # tells nothing
                total = len(codes)
                for f, part in parts.items():
                    if f != win:
                        total += cost(frozenset(part), after(state, g, f) if hard else None)
                best = total if best is None else min(best, total)
            memo[key] = best
        return memo[key]

    return cost(frozenset(answers), ((None,) * 5, ()) if hard else None)


# ---------------------------------------------------------------- the lists of the tests
def small_lists() -> tuple[list[str], list[str]]:
    """40 answers (the -ATCH and -IGHT families, hard mode's trap, and every 100th
    answer) and 83 guesses (the answers and every 300th allowed word): hard mode costs
    more here than normal mode."""
    family = re.compile(r"^.(atch|ight)$")
    answers = sorted({w for w in SHIPPED.answers if family.match(w)} | set(SHIPPED.answers[::100]))
    guesses = sorted(set(answers) | set(SHIPPED.guesses[6::300]))
    return answers, guesses


#: The brute force's optima of :func:`small_lists` (checked in the first test).
NORMAL, HARD = 99, 108


def write(path: Path, words: list[str]) -> str:
    path.write_text("".join(w + "\n" for w in words))
    return str(path)


@pytest.fixture
def lists(tmp_path) -> tuple[str, str]:
    answers, guesses = small_lists()
    return write(tmp_path / "a.txt", answers), write(tmp_path / "g.txt", guesses)


@pytest.fixture
def other(tmp_path) -> tuple[str, str]:
    """The small lists but one answer (still a guess): another game."""
    answers, guesses = small_lists()
    return write(tmp_path / "a2.txt", answers[1:]), write(tmp_path / "g2.txt", guesses)


def run(*args: str):
    return CliRunner().invoke(main, list(args))


# ---------------------------------------------------------------- optimum against the oracle
@pytest.mark.slow
def test_the_brute_force_knows_the_two_modes():
    answers, guesses = small_lists()
    assert (len(answers), len(guesses)) == (40, 83)
    assert brute_optimum(answers, guesses, hard=False) == NORMAL
    assert brute_optimum(answers, guesses, hard=True) == HARD


@pytest.mark.parametrize(
    ("mode", "total"),
    [pytest.param("wordle", NORMAL, marks=pytest.mark.slow), ("wordle-hard", HARD)],
)
def test_evo_optimum_on_a_list_of_our_own_is_the_brute_forces(lists, mode, total):
    a, g = lists
    out = run("baselines", "--only", "optimal", "--game", mode, "--answers", a, "--guesses", g,
              "--json")  # fmt: skip
    assert out.exit_code == 0, out.output
    (result,) = json.loads(out.stdout)
    assert result["total"] == total
    assert sum(result["histogram"].values()) == 40
    bound = run("bound", "--workers", "1", "--game", mode, "--answers", a, "--guesses", g, "--json")
    assert bound.exit_code == 0, bound.output
    assert json.loads(bound.stdout)["lower_bound"] == total


def test_the_python_game_is_the_command_lines(lists):
    a, g = lists
    answers, guesses = small_lists()
    from_files = wordle_game(answers=a, guesses=g)
    upper = wordle_game(answers=[w.upper() for w in reversed(answers)], guesses=guesses)
    assert upper is from_files  # case-folded and sorted: the same lists, the same game
    assert (from_files.num_codes, from_files.num_guesses) == (40, 83)
    assert from_files.format_code(0) == answers[0].upper()
    assert from_files.key == ("wordle", from_files.lists.digest) != make_game("wordle").key
    assert wordle_game(True, answers=a, guesses=g).key[0] == "wordle-hard"
    assert pickle.loads(pickle.dumps(from_files)) is from_files
    with pytest.raises(ValueError, match="not in the allowed guesses"):
        from_files.parse_code("zesty")
    # The shipped lists, in another order and case, are the shipped game.
    same = wordle_game(answers=[w.upper() for w in SHIPPED.answers[::-1]], guesses=SHIPPED.guesses)
    assert same is wordle_game() and same.key == ("wordle",)


# ---------------------------------------------------------------- trust: names, files, records
def test_the_spec_names_the_lists_and_rebuilds_them(tmp_path):
    # Lists no other test makes: the game is made here, from these files (a game is
    # made once per process, and keeps the names of the files it was first made from).
    answers, guesses = small_lists()
    a = write(tmp_path / "a.txt", answers)
    g = write(tmp_path / "g.txt", guesses[:-1])
    game = wordle_game(answers=a, guesses=g)
    spec = game.spec
    assert spec["digest"] == game.lists.digest and len(spec["digest"]) == 64
    assert (spec["answers_file"], spec["guesses_file"]) == ("a.txt", "g.txt")
    assert spec_key(spec) == game.key and game_from_spec(spec) is game
    assert game.name == f"wordle-{game.lists.digest[:12]}"
    # The words travel with a small game: its spec alone makes it again.
    assert len(spec["words"]["guesses"]) == 82 <= SPEC_WORDS_UP_TO
    forged = {**spec, "words": {**spec["words"], "answers": spec["words"]["answers"][1:]}}
    with pytest.raises(ValueError, match="do not make the lists of game.digest"):
        game_from_spec(forged)
    named = {**spec, "words": {"answers": "/etc/hostname", "guesses": spec["words"]["guesses"]}}
    with pytest.raises(ValueError, match="should hold the lists"):  # a file never read
        game_from_spec(named)


def test_a_big_list_is_named_by_digest_and_files_and_asked_for_again(tmp_path):
    answers = list(SHIPPED.answers[1:])  # one answer fewer: 12,972 guesses, not written whole
    path = write(tmp_path / "big.txt", answers)
    game = wordle_game(answers=path)
    assert "words" not in game.spec and game.spec["answers_file"] == "big.txt"
    unknown = {**game.spec, "digest": "0" * 64}
    with pytest.raises(UnknownGameError, match=r"big\.txt and its guesses.*--answers FILE"):
        game_from_spec(unknown)
    assert game_from_spec(game.spec) is game  # made in this process: found by its digest


def test_a_tree_of_one_list_is_refused_for_another_list(lists, other, tmp_path):
    a, g = lists
    out = run("baselines", "--only", "optimal", "--game", "wordle", "--answers", a, "--guesses",
              g, "--save", str(tmp_path / "trees"))  # fmt: skip
    assert out.exit_code == 0, out.output
    tree_file = tmp_path / "trees" / "optimal.json"
    assert load_tree(tree_file).total == NORMAL  # its game from its spec alone
    mine = wordle_game(answers=a, guesses=g)
    assert load_tree(tree_file, game=mine).game is mine
    with pytest.raises(TreeFileError, match="the tree is for Wordle on the word lists of digest"):
        load_tree(tree_file, game=make_game("wordle"))
    for flags in (["--answers", other[0], "--guesses", other[1]], []):
        refused = run("table", str(tree_file), "--game", "wordle", *flags)
        assert refused.exit_code != 0
        message = refused.output.strip()
        assert "\n" not in message and "Traceback" not in message, message
        assert "the tree is for Wordle on the word lists of digest" in message
    hard = run("table", str(tree_file), "--game", "wordle-hard", "--answers", a, "--guesses", g)
    assert hard.exit_code != 0 and "not for Wordle in hard mode on" in hard.output
    shown = run("table", str(tree_file), "--game", "wordle", "--answers", a, "--guesses", g)
    assert shown.exit_code == 0, shown.output


@pytest.mark.slow
def test_a_certificate_of_one_list_is_refused_for_another(lists, other, tmp_path):
    a, g = lists
    cert = str(tmp_path / "cert.json")
    made = run("bound", "--workers", "1",
               "--game", "wordle", "--answers", a, "--guesses", g, "--depth", "1",
               "--certificate", cert)  # fmt: skip
    assert made.exit_code == 0, made.output
    ok = run("bound", "--game", "wordle", "--answers", a, "--guesses", g, "--check", cert)
    assert ok.exit_code == 0, ok.output
    for flags in (["--answers", other[0], "--guesses", other[1]], []):
        bad = run("bound", "--game", "wordle", *flags, "--check", cert)
        assert bad.exit_code != 0 and "Traceback" not in bad.output
        assert "the certificate is of" in bad.output and len(bad.output.strip().splitlines()) == 1


def test_no_known_optimum_of_the_shipped_lists_applies_to_others(lists):
    assert known_optimum(make_game("wordle")).total == 7920
    close = wordle_game(answers=SHIPPED.answers[1:])  # 2,314 answers: no record, not 7,920
    assert known_optimum(close) is None
    small = wordle_game(answers=lists[0], guesses=lists[1])
    found = known_optimum(small)  # 40 answers: computed on the spot, not looked up
    assert found is not None and found.total == NORMAL and "computed now" in found.source
    hard = known_optimum(wordle_game(True, answers=lists[0], guesses=lists[1]))
    assert hard is not None and hard.total == HARD  # hard mode's rule kept


@pytest.mark.slow
def test_the_baseline_cache_of_one_list_is_never_read_for_another(lists, other, isolated_cache):
    a, g = lists
    first = run("baselines", "--only", "optimal", "--game", "wordle", "--answers", a, "--guesses",
                g, "--json")  # fmt: skip
    assert first.exit_code == 0 and json.loads(first.stdout)[0]["cached"] is False
    folder = isolated_cache / wordle_game(answers=a, guesses=g).name
    assert (folder / "optimal.json").is_file()
    again = run("baselines", "--only", "optimal", "--game", "wordle", "--answers", a,
                "--guesses", g, "--json")  # fmt: skip
    assert json.loads(again.stdout)[0]["cached"] is True  # the cache is used for its lists
    # The file copied where the other lists' optimum is kept is not taken for theirs.
    theirs = isolated_cache / wordle_game(answers=other[0], guesses=other[1]).name
    theirs.mkdir()
    shutil.copy(folder / "optimal.json", theirs / "optimal.json")
    out = run("baselines", "--only", "optimal", "--game", "wordle", "--answers", other[0],
              "--guesses", other[1], "--json")  # fmt: skip
    (result,) = json.loads(out.stdout)
    assert result["cached"] is False
    assert result["total"] == brute_optimum(*map(_words, other), hard=False)
    # Nor in the shipped game's folder.
    shipped = isolated_cache / "wordle"
    shipped.mkdir()
    shutil.copy(folder / "optimal.json", shipped / "kooi.json")
    kooi = run("baselines", "--only", "kooi", "--game", "wordle", "--json")
    assert json.loads(kooi.stdout)[0]["cached"] is False


def _words(path: str) -> list[str]:
    return Path(path).read_text().split()


# ---------------------------------------------------------------- bad lists: one line each
BAD = [
    ("dup.txt", "cigar\nrebut\ncigar\n", "dup.txt:3: 'cigar' repeats line 1"),
    ("fold.txt", "Cigar\nrebut\nCIGAR\n", "fold.txt:3: 'CIGAR' repeats line 1 (case aside)"),
    ("short.txt", "cigar\nrebu\n", "short.txt:2: 'rebu' has 4 letters, not 5"),
    ("long.txt", "cigars\n", "long.txt:1: 'cigars' has 6 letters, not 5"),
    ("digit.txt", "cigar\nreb1t\n", "digit.txt:2: 'reb1t' is not a word of letters a-z"),
    ("accent.txt", "cigar\ncafés\n", "accent.txt:2: 'cafés' is not a word of letters a-z"),
    ("space.txt", "cigar\nre but\n", "space.txt:2: 're but' is not a word of letters a-z"),
    ("empty.txt", "", "empty.txt: no words (an empty answers list)"),
    ("blank.txt", "\n  \n", "blank.txt: no words (an empty answers list)"),
    ("latin1.txt", b"cigar\ncaf\xe9s\n", "latin1.txt:2: not UTF-8 text"),
]


@pytest.mark.parametrize(("name", "text", "message"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_list_is_one_line_naming_the_file_and_line(tmp_path, name, text, message):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    out = run("bound", "--game", "wordle", "--answers", str(path), "--depth", "0")
    assert out.exit_code == 2, out.output
    lines = out.output.strip().splitlines()
    assert lines[-1].startswith("Error: ") and message in lines[-1], out.output
    assert "Traceback" not in out.output and str(path) in lines[-1]
    with pytest.raises(WordListError, match=re.escape(message)):
        word_lists(str(path))


def test_an_answer_missing_from_the_guesses_is_named(tmp_path):
    a = write(tmp_path / "a.txt", ["cigar", "rebut", "sissy"])
    g = write(tmp_path / "g.txt", ["cigar", "sissy", "salet"])
    out = run("bound", "--game", "wordle-hard", "--answers", a, "--guesses", g)
    assert out.exit_code == 2
    assert f"{a}:2: 'rebut' is not among g.txt (every answer must be a guess)" in out.output
    missing = run("bound", "--game", "wordle", "--answers", str(tmp_path / "none.txt"))
    assert missing.exit_code == 2 and "none.txt: cannot read the answers list" in missing.output
    with pytest.raises(WordListError, match=r"answers\[0\]: 'zzzzz' is not among the shipped"):
        word_lists(["zzzzz"])


def test_the_lists_apply_to_wordle_alone(lists):
    out = run("bound", "-n", "3", "-c", "3", "--answers", lists[0], "--depth", "0")
    assert out.exit_code == 2 and "--answers applies to --game wordle or wordle-hard" in out.output


def test_a_list_with_blank_lines_and_spaces_is_read(tmp_path):
    path = write(tmp_path / "a.txt", ["  Cigar ", "", "REBUT", "sissy\r"])
    assert wordle_game(answers=path).lists.answers == ("cigar", "rebut", "sissy")


def test_evolve_runs_on_the_lists_of_its_game_not_the_shipped_ones(lists):
    import evo

    game = wordle_game(answers=lists[0], guesses=lists[1])
    result = evo.evolve(game, seed=1, generations=1)
    assert result.best.game is game and result.best.total >= NORMAL
    assert result.summary["game"]["digest"] == game.lists.digest
    with pytest.raises(ValueError, match="is not the game evolved"):
        evo.evolve(game, {"game": {"kind": "wordle", "digest": "1" * 64}}, generations=1)
    # A config naming lists this process never had says how to give them.
    from evo.config.schema import game_codes

    assert game_codes({"kind": "wordle", "digest": game.lists.digest}) == 40
    with pytest.raises(UnknownGameError, match="word lists not given here"):
        game_codes({"kind": "wordle-hard", "digest": "1" * 64})
