"""``evo play --game wordle`` (issue 53 item 3): the secret asked for is one of the answers,
the guesses are shown as words, and the colours are typed as letters, squares or the
digits most solvers print (2 green, 1 yellow, 0 grey), each answered here by a
letter-by-letter statement of the rule (:func:`rule`), not by evo's table."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from support.definitions import wordle_reference as rule

from evo.cli import main
from evo.core.treeio import load_tree
from evo.games.words import parse_feedback

SHIPPED = Path(__file__).resolve().parent.parent / "breakers" / "wordle.json"

#: The rule's letters as the digits: 2 green, 1 yellow, 0 grey.
DIGITS = str.maketrans({"G": "2", "Y": "1", "B": "0"})


@pytest.mark.parametrize("text", ["21001", "2 1 0 0 1", " 2 1 001 "])
def test_the_digits_are_read_two_green_one_yellow_zero_grey(text):
    assert parse_feedback(text) == parse_feedback("GYBBY")


@pytest.mark.parametrize("text", ["21003", "2100", "2,1,0,0,1"])
def test_other_digits_are_refused_naming_the_three_forms(text):
    with pytest.raises(ValueError, match=r"is not a Wordle feedback: .* 2 \(green\)"):
        parse_feedback(text)


def _words(secret: str) -> list[str]:
    """The guesses the shipped breaker makes for ``secret``, from its file's tree."""
    tree = load_tree(SHIPPED)
    game = tree.game
    return [game.format_code(g).lower() for g, _ in tree.play(game.parse_code(secret))]


@pytest.mark.parametrize("secret", ["cigar", "eerie", "nymph"])
def test_a_game_typed_in_digits_is_solved_with_the_guesses_shown_as_words(secret):
    words = _words(secret)
    typed = "".join(" ".join(rule(w, secret).translate(DIGITS)) + "\n" for w in words)
    out = CliRunner().invoke(main, ["play", str(SHIPPED)], input=typed)
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].startswith("Think of a secret, one of Wordle's 2,315 answers")
    assert "2 green, 1 yellow, 0 grey" in lines[0]
    asked = [ln.split(": ")[1].split()[0] for ln in lines if ln.startswith("Guess ")]
    assert asked == [w.upper() for w in words] and asked[0] == "SALET"
    assert lines[-1] == f"Solved in {len(words)} guess{'es' if len(words) > 1 else ''}: " + (
        secret.upper()
    )


def test_a_wrong_answer_is_refused_and_asked_again():
    words = _words("cigar")
    first = rule(words[0], "cigar").translate(DIGITS)
    # Five greens to SALET is no answer CIGAR gives; then the right one, and the rest.
    typed = "22222\n" + "".join(rule(w, "cigar").translate(DIGITS) + "\n" for w in words)
    out = CliRunner().invoke(main, ["play", str(SHIPPED)], input=typed)
    assert out.exit_code == 0, out.output
    assert first != "22222" and out.output.count("Guess 1: SALET") == 2
    assert out.output.rstrip().endswith("CIGAR")


def test_a_secret_that_is_a_guess_but_no_answer_is_one_line_not_a_traceback():
    # AAHED is allowed as a guess but is not among the 2,315 answers: before, an IndexError.
    out = CliRunner().invoke(main, ["play", str(SHIPPED), "--secret", "aahed"])
    assert out.exit_code == 2, out.output
    assert "'aahed' is a guess but not a secret: one of Wordle's 2,315 answers" in out.output
    assert "Traceback" not in out.output and out.exception is not None
    ok = CliRunner().invoke(main, ["play", str(SHIPPED), "--secret", "abbey"])
    assert ok.exit_code == 0 and ok.output.splitlines()[1].startswith("Guess 1: SALET")
