"""The compiled one-step search (issue 23): consistent candidates first, each candidate
dropped once its partial score reaches the best, a stop at the lowest score possible,
whole subtrees of small sets in one call, symmetry reduced by a compiled kernel, and no
table built for a one-step tree. Every shortcut must leave every choice as it was: each
is checked against the NumPy ranking (the scores written plainly) or the NumPy path."""

from __future__ import annotations

import numpy as np
import pytest

from evo.core import engine
from evo.core.game import make_game
from evo.core.kinds import HEURISTICS
from evo.games.pegs import feedback_index
from evo.search import lookahead, symmetry
from evo.search.build import Node
from evo.search.lookahead import _nlogn, ranked_guesses
from evo.search.lookahead_kernel import best_guess, best_guess_threads
from evo.search.palette import palette

GAMES = [(4, 6, "mastermind"), (3, 6, "bulls-cows"), (3, 5, "mastermind")]


def _code_sets(game, rng):
    """Code sets as a search meets them (parts after two or three guesses, of every size)
    and random ones: sizes from 3 to every code, with and without perfect splits."""
    sets = [np.arange(game.num_codes, dtype=np.int64)]
    for _ in range(6):
        a, b, c = rng.integers(game.num_codes, size=3)
        key = game.feedback_row(int(a)).astype(np.int64) * 1000 + game.feedback_row(int(b)) * 31
        for extra in (None, c):
            k = key if extra is None else key * 31 + game.feedback_row(int(extra))
            _, inv, cnt = np.unique(k, return_inverse=True, return_counts=True)
            for part in np.flatnonzero(cnt >= 3)[:4]:
                sets.append(np.flatnonzero(inv == part).astype(np.int64))
    for size in (3, 9, 40, min(300, game.num_codes - 1)):
        sets.append(np.sort(rng.choice(game.num_codes, size, replace=False)).astype(np.int64))
    return sets


@pytest.mark.parametrize("args", GAMES)
@pytest.mark.parametrize("source", ["table", "computed"])
def test_kernel_choice_is_the_first_of_the_numpy_ranking(args, source):
    """Serial and threaded kernels, table or computed feedbacks, every heuristic, both
    pools: the guess NumPy ranks first (best score, then consistent, then lowest code)."""
    game = make_game(*args)
    src = game.feedback_source if source == "table" else game.computed_source
    every = np.arange(game.num_codes, dtype=np.int64)
    rng = np.random.default_rng(11)
    args_ = (game.num_feedbacks, _nlogn(game.num_codes), palette(game), 0)
    for codes in _code_sets(game, rng):
        for h, name in enumerate(HEURISTICS):
            for pool, cands in (("all", every), ("consistent", codes)):
                ranked, _ = ranked_guesses(game, codes, heuristic=name, pool=pool)
                want = int(ranked[0]) if len(ranked) else -1
                got = best_guess(src, codes, cands, h, *args_)
                assert got == want, (name, pool, len(codes))
                assert best_guess_threads(src, codes, cands, h, *args_) == want


def test_the_stop_at_the_lowest_score_changes_no_choice():
    """A set that some non-consistent guess splits into singletons, and none of its own
    codes does: the scan stops at the first such guess, which is NumPy's first."""
    game = make_game(4, 6)
    rng = np.random.default_rng(3)
    every = np.arange(game.num_codes, dtype=np.int64)
    args_ = (game.num_feedbacks, _nlogn(game.num_codes), palette(game), 0)
    seen = 0
    for _ in range(300):
        codes = np.sort(rng.choice(game.num_codes, 6, replace=False)).astype(np.int64)
        fb = game.table[np.ix_(codes, codes)]
        if any(len(set(row)) == len(codes) for row in fb):
            continue  # a consistent guess splits them: not the case under test
        ranked, scores = ranked_guesses(game, codes, heuristic="knuth")
        if scores[0] != 1:
            continue
        seen += 1
        for h in range(4):
            assert (
                best_guess(game.feedback_source, codes, every, h, *args_)
                == ranked_guesses(game, codes, heuristic=HEURISTICS[h])[0][0]
            )
    assert seen >= 5


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("subtree", [0, 40, 10**9])
def test_small_subtrees_in_one_call_give_the_same_tree(monkeypatch, subtree, threads):
    """Built node by node (a big game's path) with subtrees of at most ``SUBTREE_CODES``
    codes from one compiled call: the tree of the whole-tree kernel, progress to the end."""
    game = make_game(4, 6)
    engine.set_threads(threads)
    try:
        whole = {h: lookahead.lookahead_tree(game, h, engine="compiled") for h in HEURISTICS}
        monkeypatch.setattr(lookahead, "WHOLE_TREE_CODES", 0)
        monkeypatch.setattr(lookahead, "SUBTREE_CODES", subtree)
        for h in HEURISTICS:
            seen: list[int] = []
            tree = lookahead.lookahead_tree(
                game, h, engine="compiled", progress=lambda f, t, seen=seen: seen.append(f)
            )
            assert np.array_equal(tree.guess, whole[h].guess), h
            assert np.array_equal(tree.label, whole[h].label)
            assert tree.total == whole[h].total and seen[-1] == game.num_codes
            if subtree:  # the batches of subtrees ran on the threads given, no more
                import numba

                assert numba.get_num_threads() == threads
    finally:
        engine.set_threads(None)


@pytest.mark.parametrize("batch", [1, 7, 10**9])
def test_small_subtrees_are_built_in_batches_as_the_tree_grows(batch):
    """The subtrees of small sets are built ``batch`` sets at a time while the bigger
    nodes are still being chosen, so the codes found grow steadily (a progress line's time
    left means something); all at the end when the batch holds them all. The same tree."""
    from evo.search.build import Subtrees, build_tree

    game = make_game(4, 6)
    whole = lookahead.lookahead_tree(game, "entropy", engine="compiled")
    player = lookahead.lookahead_player(game, "entropy", engine="compiled")
    below = Subtrees(40, lookahead._compiled_subtrees(game, "entropy", "all"), batch=batch)
    found = [0]
    at_choice: list[int] = []  # codes found when each node above the small sets is chosen

    def choose(codes, node):
        at_choice.append(found[-1])
        return player(codes, node)

    tree = build_tree(game, choose, progress=lambda f, t: found.append(f), subtrees=below)
    assert np.array_equal(tree.guess, whole.guess) and tree.total == whole.total
    assert found[-1] == game.num_codes
    if batch < 10**9:
        assert at_choice[-1] >= game.num_codes // 2
    else:
        assert at_choice[-1] < game.num_codes // 10


@pytest.mark.parametrize("args", [(4, 6, "mastermind"), (5, 5, "mastermind"), (4, 8, "bulls-cows")])
def test_compiled_canonical_forms_are_numpys(monkeypatch, args):
    game = make_game(*args)
    rng = np.random.default_rng(2)
    codes = np.arange(game.num_codes, dtype=np.int64)
    for history in [(), (0,), tuple(int(x) for x in rng.integers(game.num_codes, size=2))]:
        group = Node.after(game, history).stabilizer
        monkeypatch.setattr(symmetry, "_COMPILED_ROWS", 1 << 62)
        plain = group.canonical(codes)
        monkeypatch.setattr(symmetry, "_COMPILED_ROWS", 0)
        assert np.array_equal(group.canonical(codes), plain), history


def test_a_one_step_baseline_builds_no_table(tmp_path, monkeypatch):
    """A game whose table would be a cache file not yet built: the one-step tree computes
    its feedbacks (no file written, no table in memory) and is the tree built with it."""
    from evo import baselines
    from evo.games import pegs as game_module

    monkeypatch.setattr(game_module, "TABLE_FILE_BYTES", 1 << 20)  # (4,6): 1.7 MB
    game = make_game(4, 6, cache=str(tmp_path))
    assert not game.table_at_hand
    found = baselines.run(game, "knuth")
    assert found.tree.total == 5801 and found.tree.game is game
    assert not (tmp_path / game.name / "feedback-table.bin").exists()
    assert "table" not in game.__dict__
    with_table = make_game(4, 6).prepare()
    assert np.array_equal(found.tree.guess, baselines.build(with_table, "knuth").guess)
    game.prepare()  # once the file is there, it is at hand
    assert game.table_at_hand and (tmp_path / game.name / "feedback-table.bin").exists()


@pytest.mark.parametrize("args", [(4, 6, "mastermind"), (4, 7, "bulls-cows")])
def test_codes_differing_only_in_absent_colors_split_a_set_alike(args):
    """The rule behind skipping candidates: colors no code of the set has answer alike
    wherever they stand, so a guess and the lowest code of its class (those colors
    replaced by the lowest absent ones) give the same part sizes, and the kernel, which
    scores only the lowest, keeps NumPy's choice on such sets."""
    from evo.search.partition import partition_counts

    game = make_game(*args)
    rng = np.random.default_rng(4)
    digits = game.digits
    every = np.arange(game.num_codes, dtype=np.int64)
    args_ = (game.num_feedbacks, _nlogn(game.num_codes), palette(game), 0)
    checked = 0
    for codes in _code_sets(game, rng):
        absent = sorted(set(range(game.colors)) - set(np.unique(digits[codes]).tolist()))
        if len(absent) < 2 or len(codes) < 3:
            continue
        checked += 1
        for g in rng.choice(game.num_codes, 40, replace=False):
            d = [int(x) for x in digits[g]]
            spots = [i for i, c in enumerate(d) if c in absent]
            if not spots:
                continue
            low = list(d)
            for k, i in enumerate(spots):
                low[i] = absent[0] if game.variant == "mastermind" else absent[k]
            lowest = game.code_of_digits(low)
            a, b = partition_counts(game, codes, np.array([g, lowest]))
            assert np.array_equal(a, b)
        for h, name in enumerate(HEURISTICS):
            want = ranked_guesses(game, codes, heuristic=name)[0][0]
            assert best_guess(game.feedback_source, codes, every, h, *args_) == want
    assert checked >= 5


def test_unplayed_colors_reduce_candidates_only_below_their_history():
    """Colors no guess above has played can be renamed among themselves, so only the
    first code of each such orbit is scored: with the node's true history the kernel
    keeps NumPy's choice; told that nothing was played, it would miss guesses (the
    history matters, and the test would see it ignored)."""
    game = make_game(4, 6)
    every = np.arange(game.num_codes, dtype=np.int64)
    base = (game.num_feedbacks, _nlogn(game.num_codes))
    first = game.parse_code("1122")
    wrong = 0
    for second in ("1134", "3345", "1223"):
        history = (first, game.parse_code(second))
        key = game.feedback_row(history[0]).astype(np.int64) * 64 + game.feedback_row(history[1])
        for part in np.unique(key):
            codes = np.flatnonzero(key == part).astype(np.int64)
            if len(codes) < 3:
                continue
            for h, name in enumerate(HEURISTICS):
                want = ranked_guesses(game, codes, heuristic=name)[0][0]
                assert (
                    best_guess(
                        game.feedback_source, codes, every, h, *base, palette(game, history), 0
                    )
                    == want
                )
                wrong += (
                    best_guess(game.feedback_source, codes, every, h, *base, palette(game, ()), 0)
                    != want
                )
    assert wrong > 0


@pytest.mark.parametrize(
    "args", [(1, 3, "mastermind"), (3, 4, "mastermind"), (4, 6, "mastermind"), (3, 6, "bulls-cows")]
)
def test_one_feedback_of_the_triangle_never_happens(args):
    """The kernel's stop counts at most F - 1 parts (F - 2 without the win): of the
    (black, white) pairs, N - 1 black and 1 white never happens."""
    game = make_game(*args)
    seen = np.unique(game.table)
    assert len(seen) == game.num_feedbacks - 1
    missing = (set(range(game.num_feedbacks)) - set(seen.tolist())).pop()
    assert feedback_index(game.pegs - 1, 1, game.pegs) == missing


def test_progress_is_reported_on_the_numpy_engine_too():
    """Node by node in NumPy (no compiled subtrees) the build reports codes found, one
    call per node, to the end."""
    game = make_game(3, 4)
    seen: list[int] = []
    tree = lookahead.lookahead_tree(
        game, "knuth", engine="numpy", progress=lambda f, t: seen.append(f)
    )
    assert len(seen) == len(tree.guess) and seen[-1] == game.num_codes


def _admitted(game, pal):
    """The codes the kernel's orbit filter scores under palette ``pal``."""
    from evo.search.symmetry_kernel import lowest_of_its_orbit

    labels = np.empty(32, dtype=np.int64)
    return [c for c in range(game.num_codes) if lowest_of_its_orbit(c, pal, labels)]


@pytest.mark.parametrize(
    "args, history",
    [
        ((4, 6, "mastermind"), ()),
        ((4, 6, "mastermind"), ("1122",)),
        ((4, 6, "mastermind"), ("1122", "1344")),
        ((4, 6, "mastermind"), ("1234", "2143", "5566")),
        ((3, 6, "bulls-cows"), ("123",)),
        ((3, 6, "bulls-cows"), ("123", "321")),
    ],
)
def test_the_kernel_scores_one_code_per_orbit_of_the_history(args, history):
    """The whole-tree kernel carries the symmetries of each node's history (position
    permutations and color maps, extended guess by guess) and scores one code per orbit:
    exactly the representatives of evo.search.symmetry, and the group it extends is the
    one evo.search.symmetry computes. Without them (the identity alone) it would score
    more."""
    from evo.search.symmetry_kernel import fixing

    game = make_game(*args)
    hist = tuple(game.parse_code(h) for h in history)
    pal = palette(game, hist, symmetries=True)
    want = Node.after(game, hist).stabilizer.representatives()
    assert _admitted(game, pal) == sorted(want.tolist())
    assert len(pal.pis) == len(Node.after(game, hist).stabilizer.perms)
    if hist:
        above = palette(game, hist[:-1], symmetries=True)
        pis, luts = fixing(above.pis, above.luts, above.played, hist[-1], game.digits)
        assert sorted(map(tuple, np.c_[pis, luts].tolist())) == sorted(
            map(tuple, np.c_[pal.pis, pal.luts].tolist())
        )
    alone = palette(game, hist)  # the identity and the unplayed colors only
    assert len(alone.pis) == 1 and len(_admitted(game, alone)) >= len(want)
    if len(Node.after(game, hist).stabilizer.perms) > 1:
        assert len(_admitted(game, alone)) > len(want)


def test_most_parts_with_more_feedbacks_than_bits_in_a_word():
    """Kooi counts the parts met as bits of a word up to 64 feedbacks; beyond (ten pegs:
    66), by counts: both keep NumPy's choice."""
    game = make_game(10, 2)
    assert game.num_feedbacks > 64
    every = np.arange(game.num_codes, dtype=np.int64)
    args_ = (game.num_feedbacks, _nlogn(game.num_codes), palette(game), 0)
    kooi = HEURISTICS.index("kooi")
    for codes in _code_sets(game, np.random.default_rng(5)):
        want = ranked_guesses(game, codes, heuristic="kooi")[0]
        got = best_guess(game.feedback_source, codes, every, kooi, *args_)
        assert got == (int(want[0]) if len(want) else -1), len(codes)
