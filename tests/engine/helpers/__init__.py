"""Helpers of the engine's tests (and the golden replay): an oracle of the rules, a transition checker,
random checked games."""
