"""The run's progress on standard error: a bar on a terminal, a line every 10 s else."""

from __future__ import annotations

import sys
import time

from evo.config import Config
from evo.ea.state import State


class Progress:
    """A tqdm bar (generation, best and average totals, Knuth's total; the epoch of an
    island run); when standard error is not a terminal, a line every 10 seconds."""

    def __init__(self, config: Config, state: State, *, knuth: int | None, enabled: bool):
        self.enabled = enabled
        self.knuth = "n/a" if knuth is None else knuth
        self.islands = config.islands.count
        self.last = time.perf_counter()
        self.bar = None
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm

            desc = config.name if self.islands == 1 else f"{config.name} ({self.islands} islands)"
            # A bar toward the last generation when that is the limit; a counter when the
            # wall time is (generations then come at no foreseeable pace).
            self.bar = tqdm(
                total=config.stop.generations if config.stop.seconds is None else None,
                initial=state.generation,
                desc=desc,
                unit="gen",
                file=sys.stderr,
                dynamic_ncols=True,
            )
            self.bar.set_postfix_str(self._text(state))

    def _text(self, state: State) -> str:
        r = state.logbook[-1]
        return f"best={r['min']} avg={r['avg']:.1f} knuth={self.knuth}"

    def update(self, state: State) -> None:
        """Show the generation (or the epoch) just finished."""
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix_str(self._text(state), refresh=False)
            self.bar.update(state.generation - self.bar.n)
        elif time.perf_counter() - self.last >= 10:
            self.last = time.perf_counter()
            print(
                f"gen {state.generation}: {self._text(state)} ({state.elapsed:.0f} s)",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
