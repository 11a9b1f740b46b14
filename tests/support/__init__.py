"""Test oracles written independently of ``evo``: the game's definitions played by hand
(:mod:`support.definitions`) and the literal code-by-code random path completion
(:mod:`support.reference_growth`). Test modules import these; fixtures are in
``tests/conftest.py``."""
