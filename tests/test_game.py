"""Games: feedback against the definition, numbering, printing, memory refusal."""

import numpy as np
import pytest
from support.definitions import all_code_tuples, design_feedback_number
from support.reference_growth import brute_feedback

from evo.core.game import GameTooLargeError, make_game
from evo.games.pegs import feedback_index, feedback_pair

SMALL_GAMES = [
    (2, 2, "mastermind"),
    (3, 3, "mastermind"),
    (2, 5, "mastermind"),
    (4, 3, "mastermind"),
    (3, 4, "mastermind"),
    (3, 5, "bulls-cows"),
    (2, 4, "bulls-cows"),
    (4, 5, "bulls-cows"),
]


@pytest.mark.parametrize("pegs,colors,variant", SMALL_GAMES)
@pytest.mark.parametrize("table", [True, False])
def test_feedback_matches_definition_on_every_pair(pegs, colors, variant, table):
    game = make_game(pegs, colors, variant, table=table)
    codes = all_code_tuples(pegs, colors, variant)
    assert game.num_codes == len(codes)
    assert [tuple(r) for r in game.digits.tolist()] == codes
    expected = np.array(
        [[design_feedback_number(*brute_feedback(g, s), pegs) for s in codes] for g in codes]
    )
    every = np.arange(len(codes))
    got = game.feedback(every[:, None], every[None, :])
    assert np.array_equal(got, expected)


def test_known_feedbacks():
    game = make_game(4, 6)
    fb = game.feedback(game.parse_code("1123"), game.parse_code("2321"))
    assert feedback_pair(int(fb), 4) == (1, 2)
    fb = game.feedback(game.parse_code("1122"), game.parse_code("5512"))
    assert feedback_pair(int(fb), 4) == (1, 1)
    assert game.format_feedback(int(fb)) == "1B 1W"
    assert make_game(4, 10, "bulls-cows").format_feedback(int(fb)) == "1B 1C"


def test_feedback_numbering_for_three_pegs():
    order = [(3, 0), (2, 0), (2, 1), (1, 0), (1, 1), (1, 2), (0, 0), (0, 1), (0, 2), (0, 3)]
    assert [feedback_index(b, w, 3) for b, w in order] == list(range(10))
    assert [feedback_pair(i, 3) for i in range(10)] == order
    assert make_game(3, 3).num_feedbacks == 10


def test_feedback_is_symmetric_and_win_is_zero():
    game = make_game(3, 4)
    every = np.arange(game.num_codes)
    t = game.feedback(every[:, None], every[None, :])
    assert np.array_equal(t, t.T)
    assert np.all(np.diag(t) == 0) and np.all(t[~np.eye(len(every), dtype=bool)] != 0)


def test_code_numbering_and_printing():
    game = make_game(4, 6)
    assert game.format_code(51) == "1234"  # 0123 in 0-based pegs: 0*216 + 1*36 + 2*6 + 3
    assert game.parse_code("1234") == 51
    for code in range(game.num_codes):
        assert game.parse_code(game.format_code(code)) == code
    bc = make_game(4, 10, "bulls-cows")
    assert bc.num_codes == 5040
    assert bc.format_code(0) == "0123"
    assert bc.parse_code(bc.format_code(4321)) == 4321


@pytest.mark.parametrize(
    "text,message",
    [("112", "should have 4 pegs"), ("1172", "not a color"), ("11a2", "not a color")],
)
def test_bad_codes_are_refused_clearly(text, message):
    with pytest.raises(ValueError, match=message):
        make_game(4, 6).parse_code(text)


def test_bulls_cows_refuses_repeated_digits():
    with pytest.raises(ValueError, match="repeats a digit"):
        make_game(4, 10, "bulls-cows").parse_code("1123")


def test_feedback_parsing_forms():
    """evo's notation and the bare counts of older files and answers all read alike;
    what is not two counts, or counts more pegs than the code has, is refused."""
    game = make_game(4, 6)
    want = feedback_index(1, 2, 4)
    for text in ("1B 2W", "1b2w", "1B, 2W", " 1B 2W ", "1B 2C", "1,2", "1 2", "1, 2", " 1 ,2"):
        assert game.parse_feedback(text) == want, text
    for fb in range(game.num_feedbacks):
        assert game.parse_feedback(game.format_feedback(fb)) == fb
    cows = make_game(4, 10, "bulls-cows")
    for fb in range(cows.num_feedbacks):
        assert cows.parse_feedback(cows.format_feedback(fb)) == fb
    assert cows.parse_feedback("1B 2C") == cows.parse_feedback("1,2") == want
    for bad in ("3,2", "3B 2W", "many", "1B", "12", "1W 2B", "1B 2X", "", "1,2,3", "²,1"):
        with pytest.raises(ValueError):
            game.parse_feedback(bad)


def test_game_too_large_is_refused_with_an_estimate():
    with pytest.raises(GameTooLargeError, match=r"10,000,000,000 codes and needs about [\d.]+ GiB"):
        make_game(10, 10)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"pegs": 4, "colors": 6, "variant": "bulls"}, "variant must be one of"),
        ({"pegs": 0, "colors": 6}, "pegs must be"),
        ({"pegs": 5, "colors": 4, "variant": "bulls-cows"}, "pegs <= colors"),
    ],
)
def test_bad_game_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_game(**kwargs)


def test_games_are_shared_within_a_process_and_across_pickling():
    import pickle

    game = make_game(3, 3)
    assert make_game(3, 3) is game
    assert pickle.loads(pickle.dumps(game)) is game
    assert make_game(3, 3, table=False) is not game
