"""Speed measurements for rummy-env (not part of the installed package; run from the repo root)."""
