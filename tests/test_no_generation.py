"""A run that ends without a generation, or whose workers start slower than its time,
says so plainly and names the cause (it once ended at "generations 0 (stopped by
seconds)", its workers having compiled kernels for minutes, and said nothing else)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from support.processes import run_or_dump

from evo.config import load_config
from evo.core.game import make_game
from evo.ea.workers import WorkerNews, slow_start
from evo.runs.driver import _Recorder
from evo.search.kernels import CompileWatch

TESTS = Path(__file__).resolve().parent


def _recorder(seconds: float) -> _Recorder:
    cfg = load_config({"game": {"pegs": 3, "colors": 3}, "stop": {"seconds": seconds}}, [])
    recorder = _Recorder(None, cfg, None, make_game(3, 3), None)  # type: ignore[arg-type]
    recorder.stopped_by = "seconds"
    return recorder


def test_a_run_without_a_generation_says_the_first_population_took_the_time():
    recorder = _recorder(2.0)
    recorder.first_seconds = 1.5
    recorder.compiled = (CompileWatch(), WorkerNews(2, 0.5))
    said = recorder.no_generation(SimpleNamespace(generation=0), resumed=False)
    assert said is not None
    assert said.startswith("no generation was completed within stop.seconds (2 s)")
    assert "the first population took 1.5 s" in said and "the 0.5 s left" in said
    # A generation done, another stop, or a resumed run: nothing to say.
    assert recorder.no_generation(SimpleNamespace(generation=1), resumed=False) is None
    assert recorder.no_generation(SimpleNamespace(generation=0), resumed=True) is None
    recorder.stopped_by = "generations"
    assert recorder.no_generation(SimpleNamespace(generation=0), resumed=False) is None


def test_kernels_compiled_during_the_run_are_named_as_the_cause():
    recorder = _recorder(10.0)
    news = WorkerNews(
        2, 40.0, ["evo.core.growth_kernel.grow_tree", "evo.search.exact_kernel.search"]
    )
    recorder.compiled = (CompileWatch(), news)
    said = recorder.no_generation(SimpleNamespace(generation=0), resumed=False)
    assert said is not None and "the worker processes compiled evo's kernels" in said
    assert "grow_tree, search" in said and "numba's cache did not have" in said
    line = slow_start(news, 10.0)
    assert line.startswith("the 2 worker processes took 40 s to start, longer than the run's")
    assert "compiled evo's kernels (grow_tree, search)" in line
    here = CompileWatch(kernels=[f"evo.search.exact_kernel.k{i}" for i in range(5)])
    recorder.compiled = (here, None)
    said = recorder.no_generation(SimpleNamespace(generation=0), resumed=False)
    assert (
        said is not None and "this process compiled evo's kernels (k0, k1, k2 and 2 more)" in said
    )


@pytest.mark.heavy  # its workers compile from an empty cache
def test_workers_that_compile_inside_the_run_are_said(tmp_path):
    """A run whose kernels were not compiled first (as when the marker wrongly said they
    were): its workers compile them, start slower than its 1 s and do no generation;
    both are said, naming the kernels."""
    script = (
        "from evo.search import kernels\n"
        "kernels._COMPILING = True  # nothing compiled before the run, as a wrong marker did\n"
        "from evo.config import load_config\n"
        "from evo.runs.driver import run_config\n"
        f"cfg = load_config({str(TESTS.parent / 'configs/quick.yaml')!r}, ['game.pegs=3',"
        " 'game.colors=4', 'population.size=8', 'stop.seconds=1'])\n"
        "result = run_config(cfg, knuth=False, progress=False)\n"
        "print('generations', result.state.generation)\n"
        "print('warning', result.summary.get('warning'))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    out = run_or_dump([sys.executable, "-c", script], env=env, timeout=900, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "generations 0" in out.stdout, out.stdout
    assert (
        "worker processes took" in out.stderr
        and "longer than the run's stop.seconds (1 s)" in out.stderr
    )
    assert "compiled evo's kernels (grow_tree" in out.stderr, out.stderr
    assert "warning no generation was completed within stop.seconds (1 s): the worker" in out.stdout
