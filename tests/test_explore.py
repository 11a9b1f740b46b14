"""The breaker explorer: its data checked against the game played literally, the
``evo explore`` command, and the page driven in a real headless Chromium (the system's
``chromium`` package, installed by ``make setup``) with the network blocked."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support.definitions import all_code_tuples, design_feedback_number
from support.reference_growth import brute_feedback

from evo.cli import main
from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.core.population import random_population
from evo.core.treeio import load_tree, save_tree
from evo.ea.crossover import aligned_node
from evo.show.explore import aligned_nodes, divergences, explorer_html, page_data, worst_depths

#: The module's Chromium started once, on one worker (pytest-xdist --dist loadgroup).
pytestmark = pytest.mark.xdist_group("explore")


def walked_figures(tree) -> tuple[list[int], list[int], list[int]]:
    """Per node: codes passing through it, their guesses summed (from the start of the
    game) and the most guesses any of them needs, by playing every code literally."""
    game = tree.game
    n = len(tree)
    codes, total, worst = [0] * n, [0] * n, [0] * n
    for code in all_code_tuples(game.pegs, game.colors, game.variant):
        node, path = 0, [0]
        while True:
            g = tuple(int(x) for x in game.digits[int(tree.guess[node])])
            b, w = brute_feedback(g, code)
            if (b, w) == (game.pegs, 0):
                break
            node = tree.children(node)[design_feedback_number(b, w, game.pegs)]
            path.append(node)
        for x in path:
            codes[x] += 1
            total[x] += len(path)
            worst[x] = max(worst[x], len(path))
    return codes, total, worst


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_node_figures_match_playing_every_code(seed):
    game = make_game(3, 3)
    tree = random_breaker(game, rng=np.random.default_rng(seed))
    data = page_data(tree, "t")["trees"][0]
    codes, total, worst = walked_figures(tree)
    assert data["codes"] == codes
    assert data["total_from_start"] == total
    assert data["worst_depth"] == worst
    assert worst_depths(tree).tolist() == worst
    assert data["total"] == total[0] and data["worst"] == worst[0]


def test_hand_worked_tree_figures(hand_tree):
    data = page_data(hand_tree, "hand")["trees"][0]
    printed = [data["guesses"][k] for k in data["guess"]]
    assert printed == ["11", "12", "21", "22"]  # preorder, children in feedback order
    assert data["codes"] == [4, 2, 1, 1]
    assert data["total_from_start"] == [8, 5, 3, 2]  # 1+2+3+2; 2+3; 3; 2
    assert data["worst_depth"] == [3, 3, 3, 2]
    assert data["terminal"] == [1, 1, 1, 1]


def test_alignment_is_crossovers_alignment():
    game = make_game(3, 3)
    a, b = random_population(game, 2, seed=5)
    al = aligned_nodes(a, b)
    assert al.tolist() == [aligned_node(a, x, b) for x in range(len(a))]
    assert aligned_nodes(a, a).tolist() == list(range(len(a)))


@pytest.mark.parametrize("seed", [3, 4])
def test_divergence_costs_add_up_to_the_difference(seed):
    game = make_game(3, 4)
    a, b = random_population(game, 2, seed=seed)
    divs = divergences(a, b)
    assert divs, "two random trees guess differently somewhere"
    assert sum(d.cost for d in divs) == a.total - b.total
    for d in divs:
        assert a.guess[d.node_a] != b.guess[d.node_b]
        assert set(a.code_set(d.node_a).tolist()) == set(b.code_set(d.node_b).tolist())
    assert [abs(d.cost) for d in divs] == sorted((abs(d.cost) for d in divs), reverse=True)
    assert divergences(a, a) == []


def test_page_is_self_contained(hand_tree, hand_tree_swapped):
    page = explorer_html(hand_tree, "hand", hand_tree_swapped, "swapped")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "default-src 'none'" in page  # the browser itself refuses any fetch
    m = re.search(r'<script id="evo-data" type="application/json">(.*?)</script>', page, re.S)
    data = json.loads(m.group(1))
    assert [t["name"] for t in data["trees"]] == ["hand", "swapped"]
    # They differ under <1,0> (12 against 21 on the same codes {12, 21}), at equal cost.
    assert data["divergences"] == [[1, 1, 2, 0]]
    game = hand_tree.game  # feedbacks as evo writes them everywhere
    assert data["game"]["feedbacks"] == ["2B 0W", "1B 0W", "1B 1W", "0B 0W", "0B 1W", "0B 2W"]
    assert data["game"]["feedbacks"][1] == game.format_feedback(game.parse_feedback("1,0"))


def test_a_name_cannot_close_the_script(hand_tree):
    page = explorer_html(hand_tree, "</script><script>alert(1)</script>")
    assert page.count("</script>") == 2  # the data's and the explorer's own


def test_the_data_cannot_end_or_comment_out_its_block(hand_tree, hand_tree_swapped):
    """No "<", ">" or "&" in the embedded JSON (it escapes them), and script allowed by
    the hash of the page's own script only, never 'unsafe-inline'."""
    import base64
    import hashlib

    names = ("<!--<script>", "</script><script>x=1</script> & <\u2028")
    page = explorer_html(hand_tree, names[0], hand_tree_swapped, names[1])
    block = re.search(r'<script id="evo-data" type="application/json">(.*?)</script>', page, re.S)
    assert not set("<>&\u2028") & set(block.group(1))
    assert [t["name"] for t in json.loads(block.group(1))["trees"]] == [
        names[0],
        names[1].replace("\u2028", "\\u2028"),  # unprintable: escaped as Python writes it
    ]
    policy = re.search(r'http-equiv="Content-Security-Policy"\s+content="([^"]*)"', page).group(1)
    script_src = next(p.split()[1:] for p in policy.split(";") if p.split()[0] == "script-src")
    script = page[page.rindex("<script>") + len("<script>") : page.rindex("</script>")]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert script_src == [f"'sha256-{digest}'"]


def test_explore_command(in_tmp, hand_tree):
    tmp_path = in_tmp
    game = make_game(3, 3)
    a, b = random_population(game, 2, seed=9)
    save_tree(a, tmp_path / "a.json")
    save_tree(b, tmp_path / "b.json")
    out = tmp_path / "page.html"
    res = CliRunner().invoke(
        main, ["explore", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    page = out.read_text()
    data = json.loads(re.search(r'type="application/json">(.*?)</script>', page, re.S).group(1))
    assert [t["name"] for t in data["trees"]] == ["a", "b"]
    assert [t["total"] for t in data["trees"]] == [a.total, b.total]
    # A run directory stands for its best.json; the default name says what it shows.
    run = tmp_path / "run"
    run.mkdir()
    save_tree(a, run / "best.json")
    res = CliRunner().invoke(main, ["explore", str(run)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert Path("explore-run.html").exists() and f"{len(a)} nodes" in res.output
    # Trees of two games: a one-line error, status 2.
    save_tree(hand_tree, tmp_path / "hand.json")
    res = CliRunner().invoke(
        main, ["explore", str(tmp_path / "a.json"), str(tmp_path / "hand.json"), "-o", str(out)]
    )
    assert res.exit_code == 2 and "plays" in res.output


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ------------------------------------------------------------------ in the browser

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (the system package) driven by Playwright; ``make setup`` installs
    it. Set EVO_NO_BROWSER=1 to skip these tests on a machine without it."""
    if os.environ.get("EVO_NO_BROWSER") == "1":
        pytest.skip("EVO_NO_BROWSER=1")
    path = os.environ.get("EVO_CHROMIUM", CHROMIUM)
    if not shutil.which(path):
        pytest.fail(f"{path} not found: run `make setup` (or scripts/install-chromium.sh)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def open_page(browser):
    """Open a page from a file URL in a context where every non-file request is aborted
    (and recorded: the test fails if the page tried any)."""
    contexts, attempts, errors = [], [], []

    def block(route):
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            attempts.append(route.request.url)
            route.abort()

    def opener(path: Path):
        ctx = browser.new_context(viewport={"width": 1400, "height": 900})
        contexts.append(ctx)
        ctx.route("**/*", block)
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.resolve().as_uri())
        page.wait_for_selector("body[data-ready='1']")
        return page

    yield opener
    for ctx in contexts:
        ctx.close()
    assert not attempts, f"the page tried the network: {attempts}"
    assert not errors, f"script errors: {errors}"


def shown_children(page, pane: int, node: int) -> list[tuple[str, str, str, str]]:
    """(feedback, guess, node, stats) of the children shown under a node."""
    sel = f"#pane-{pane} .node[data-node='{node}'] > .kids > .node"
    return page.eval_on_selector_all(
        sel,
        "els => els.map(e => [e.dataset.feedback, e.dataset.guess, e.dataset.node,"
        " e.querySelector(':scope > .row > .stats').textContent])",
    )


def walk_three_levels(page, doc: dict, tree, *, pane: int = 0) -> list[str]:
    """Click through three levels, each time into the answer with most codes, checking
    every guess shown against the tree file's nested document (``doc``) and every code
    count against the codes whose feedbacks lead there; returns the guesses clicked."""
    game = tree.game
    secrets = game.all_codes()
    node, nested, codes = 0, doc, secrets
    root = page.get_attribute(f"#pane-{pane} .node[data-node='0']", "data-guess")
    assert root == nested["guess"]
    clicked = []
    for _level in range(3):
        shown = shown_children(page, pane, node)
        assert page.is_visible(f"#pane-{pane} .node[data-node='{node}'] > .kids")
        # The file may spell feedbacks as evo writes them (1B 0W) or as older files did
        # (1,0); the page shows evo's notation.
        kids = {game.parse_feedback(fb): sub for fb, sub in nested.get("children", {}).items()}
        assert {game.parse_feedback(fb): g for fb, g, _, _ in shown} == {
            f: sub["guess"] for f, sub in kids.items()
        }
        assert all(fb == game.format_feedback(game.parse_feedback(fb)) for fb, *_ in shown)
        fbs = game.feedback_row(game.parse_code(nested["guess"]), codes)
        for fb, _g, _n, stats in shown:
            n = int(np.count_nonzero(fbs == game.parse_feedback(fb)))
            assert stats.startswith(f"{n} code"), (fb, stats)
        # Into the biggest answer that has further guesses.
        fb, guess, child, _ = max(
            (s for s in shown if "children" in kids[game.parse_feedback(s[0])]),
            key=lambda s: int(s[3].split()[0]),
        )
        codes = codes[fbs == game.parse_feedback(fb)]
        page.click(f"#pane-{pane} .node[data-node='{child}'] > .row")
        clicked.append(guess)
        node, nested = int(child), kids[game.parse_feedback(fb)]
    return clicked


def check_secret(page, tree, secret: str, *, pane: int = 0) -> None:
    """Type a secret and check the path shown against the tree's own game path."""
    game = tree.game
    page.fill("#secret", secret)
    page.press("#secret", "Enter")
    steps = page.eval_on_selector_all(
        f".game-path[data-tree='{pane}'] li.step",
        "els => els.map(e => [e.dataset.guess, e.dataset.feedback])",
    )
    expected = [
        [game.format_code(g), game.format_feedback(f)]
        for g, f in tree.play(game.parse_code(secret))
    ]
    assert steps == expected
    # The path is revealed in the tree, ending on the node that guesses the secret.
    target = page.get_attribute(f"#pane-{pane} .node.target", "data-guess")
    assert target == secret


@pytest.fixture(scope="module")
def knuth_and_random(tmp_path_factory):
    from evo.baselines import run

    game = make_game(4, 6)
    folder = tmp_path_factory.mktemp("trees46")
    save_tree(
        run(game, "knuth", use_cache=False).tree, folder / "knuth.json"
    )  # no cache: module scope
    save_tree(random_breaker(game, rng=np.random.default_rng(2)), folder / "random.json")
    return folder


@pytest.mark.slow
def test_explore_4_6_in_chromium(open_page, knuth_and_random, tmp_path):
    files = [knuth_and_random / "knuth.json", knuth_and_random / "random.json"]
    out = tmp_path / "page.html"
    res = CliRunner().invoke(main, ["explore", *map(str, files), "-o", str(out)])
    assert res.exit_code == 0, res.output
    trees = [load_tree(f) for f in files]
    docs = [json.loads(f.read_text())["root"] for f in files]
    page = open_page(out)
    clicked = walk_three_levels(page, docs[0], trees[0])
    assert clicked[0] == docs[0]["children"]["1B 0W"]["guess"]  # it holds most codes (256)
    walk_three_levels(page, docs[1], trees[1], pane=1)
    for secret in ("5512", "1122", "6666"):
        check_secret(page, trees[0], secret)
        check_secret(page, trees[1], secret, pane=1)
    page.fill("#secret", "1279")
    page.press("#secret", "Enter")
    assert "not a color 1..6" in page.inner_text("#secret-error")
    # Collapsing hides a node's answers; expanding shows them again.
    page.click("#pane-0 .node[data-node='0'] > .row")
    assert not page.is_visible("#pane-0 .node[data-node='0'] > .kids")
    page.click("#pane-0 .node[data-node='0'] > .row")
    assert page.is_visible("#pane-0 .node[data-node='0'] > .kids")
    # Where the trees differ: the root already (1122 against a random guess), costing
    # exactly the difference of the totals.
    first = page.eval_on_selector("tr.diff", "e => [e.dataset.nodeA, e.dataset.nodeB]")
    cells = page.eval_on_selector_all(
        "tr.diff >> nth=0 >> td", "els => els.map(e => e.textContent)"
    )
    assert first == ["0", "0"] and cells[2] == "1122"
    assert cells[-1] == f"−{trees[1].total - trees[0].total}"
    page.screenshot(path=str(tmp_path / "explore-4-6.png"))
    assert (tmp_path / "explore-4-6.png").read_bytes()[:4] == b"\x89PNG"


def test_an_older_tree_file_in_chromium(open_page, tmp_path):
    """A tree file written before the one notation (feedbacks spelled ``3,0``), as in
    breakers/, opens and walks as a new one does, in evo's notation."""
    path = Path(__file__).resolve().parent.parent / "breakers" / "mastermind-4-6.json"
    doc = json.loads(path.read_text())["root"]
    assert "3,0" in doc["children"]  # written before 1B 0W
    out = tmp_path / "page.html"
    res = CliRunner().invoke(main, ["explore", str(path), "-o", str(out)])
    assert res.exit_code == 0, res.output
    tree = load_tree(path)
    page = open_page(out)
    walk_three_levels(page, doc, tree)
    check_secret(page, tree, "5512")


#: Seconds the (5,8) page may take, from opening it to the end of the checks (the page
#: alone loads in about 2 s on the project's 2-core machine, shared).
BUDGET_5_8 = 30.0


@pytest.mark.slow
def test_explore_5_8_in_chromium(open_page, tmp_path):
    game = make_game(5, 8, table=False)  # no 1 GiB feedback table for one tree
    tree = random_breaker(game, rng=np.random.default_rng(1))
    save_tree(tree, tmp_path / "random.json")
    from evo.show.explore import write_explorer

    out = write_explorer(tmp_path / "page.html", tree, "random")
    doc = json.loads((tmp_path / "random.json").read_text())["root"]
    start = time.perf_counter()
    page = open_page(out)
    walk_three_levels(page, doc, tree)
    check_secret(page, tree, "12345")
    check_secret(page, tree, "88888")
    elapsed = time.perf_counter() - start
    assert elapsed < BUDGET_5_8, f"{elapsed:.1f} s"
    # Lazy: only the expanded nodes exist in the page.
    assert page.eval_on_selector_all(".node", "els => els.length") < 2000 < len(tree)
    page.screenshot(path=str(tmp_path / "explore-5-8.png"))
    assert (tmp_path / "explore-5-8.png").stat().st_size > 0


@pytest.mark.parametrize(
    ("pegs", "colors", "variant", "secrets"),
    [(3, 6, "bulls-cows", ["012", "543", "250"]), (2, 12, "mastermind", ["AB", "1C", "99"])],
)
def test_bulls_cows_and_many_colors_in_chromium(
    open_page, tmp_path, pegs, colors, variant, secrets
):
    """Digits from 0 (Bulls and Cows) and colors printed as letters beyond 9."""
    game = make_game(pegs, colors, variant)
    tree = random_breaker(game, rng=np.random.default_rng(4))
    from evo.show.explore import write_explorer

    page = open_page(write_explorer(tmp_path / "page.html", tree, "random"))
    for secret in secrets:
        check_secret(page, tree, secret)
    page.fill("#secret", "0" * pegs)
    page.press("#secret", "Enter")
    assert page.inner_text("#secret-error")  # 0 is no color; bulls and cows repeat no digit


#: Names that would end or comment out the page's data block, or run as markup, if the
#: page let them: an opening comment before a script tag (which makes the HTML parser
#: swallow the rest of the page), a closing script tag, markup with an event handler,
#: quotes, entities, a terminal escape, a line separator, and an undecodable byte (a lone
#: surrogate, as Python reads a file name that is not UTF-8).
HOSTILE_NAMES = (
    "<!--<script>",
    "</script><script>window.pwned=1</script>",
    "<img src=x onerror=window.pwned=1>'\"&amp;\x1b[2J\u2028\udcff",
)


@pytest.mark.slow
def test_hostile_names_are_shown_as_text_and_run_nothing(open_page, tmp_path):
    """File and run directory names reach the page as tree names and in its title: the app
    still starts, shows them as text (unprintable characters escaped), and neither they
    nor an inline script slipped into the page can run (script is allowed by hash only)."""
    from evo.baselines import run
    from evo.show.explore import write_explorer
    from evo.show.text import printable

    game = make_game(3, 3)
    knuth = run(game, "knuth").tree
    other = random_breaker(game, rng=np.random.default_rng(3))
    # Through the command: a tree file and a run directory, whose names have no "/".
    file_name, dir_name = HOSTILE_NAMES[0], HOSTILE_NAMES[2]
    save_tree(knuth, tmp_path / f"{file_name}.json")
    (tmp_path / dir_name).mkdir()
    save_tree(other, tmp_path / dir_name / "best.json")
    pages = {(file_name, dir_name): tmp_path / "cli.html"}
    args = ["explore", str(tmp_path / f"{file_name}.json"), str(tmp_path / dir_name)]
    res = CliRunner().invoke(main, [*args, "-o", str(pages[file_name, dir_name])])
    assert res.exit_code == 0, res.output
    # Through the page writer: any text at all, "/" included.
    for k, name in enumerate(HOSTILE_NAMES):
        pages[name, file_name] = write_explorer(
            tmp_path / f"p{k}.html", knuth, name, other, file_name
        )
    for (name_a, name_b), path in pages.items():
        page = open_page(path)  # waits for the app to start
        shown = page.eval_on_selector_all(
            "table.summary tr td:nth-child(2)", "els => els.map(e => e.textContent)"
        )
        assert shown == [printable(name_a), printable(name_b)]
        assert page.title() == f"evo explorer: {printable(name_a)} vs {printable(name_b)}"
        assert page.evaluate("document.querySelectorAll('img').length") == 0
        page.evaluate(
            """() => { const s = document.createElement("script");
                       s.textContent = "window.pwned = 1"; document.body.appendChild(s); }"""
        )
        assert page.evaluate("window.pwned") is None, path


@pytest.mark.slow
def test_black_peg_and_a_custom_game_in_chromium(open_page, tmp_path):
    """Black-peg Mastermind's secrets played by the page itself (its feedback is N - b);
    a custom game's found by their label, each code's path read up from its winning
    node (the page cannot compute that game's feedback)."""
    from evo.games.custom import custom_game
    from evo.show.explore import write_explorer

    black = make_game(3, 4, "black-peg")
    tree = random_breaker(black, rng=np.random.default_rng(3))
    page = open_page(write_explorer(tmp_path / "black.html", tree, "random"))
    for secret in ("111", "234", "412"):
        check_secret(page, tree, secret)
    assert "Black-peg Mastermind" in page.inner_text("h1")
    words = ["ant", "bug", "cat", "dog", "elk", "fox", "gnu", "hen"]
    game = custom_game(words, lambda g, s: len(set(g) & set(s)), name="test-explore")
    tree = random_breaker(game, rng=np.random.default_rng(5))
    page = open_page(write_explorer(tmp_path / "custom.html", tree, "random"))
    for secret in words:
        check_secret(page, tree, secret)
    page.fill("#secret", "emu")
    page.press("#secret", "Enter")
    assert "not a code of test-explore" in page.inner_text("#secret-error")
