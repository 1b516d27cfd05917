"""The engine's per-game work compiled with numba: deal, step, masks, turn searches, observations."""
