"""evo: evolve breaker trees for Mastermind-family games."""
