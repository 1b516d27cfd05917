"""A local web page to play 500 Rummy at a table of people and agents, watch agents play, and replay game records.

``python -m experiments.serve [key=value ...]`` (options in ``configs/serve.yaml``) serves
``http://127.0.0.1:8500``. The page draws every position with ``rummy_env.picture`` (the
server sends SVG text and the legal moves in words; the browser runs no game logic). Each
person sits at a seat by a private link (a token) and receives only what that seat sees
(``rummy_env.view.table_view``); spectators see the public cards. Record files come only from
the ``records`` folder (where finished games are saved) and checkpoints only from
``checkpoints``. Bad requests get a 4xx answer with a message; an agent that raises ends its
game with a message. The app itself lives in ``experiments.web``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from experiments.web.app import MAX_BODY, MAX_WATCH_STEPS, STATIC, create_app
from experiments.web.library import HUMAN, BadRequest, Library
from experiments.web.tables import Replay, Sessions, Table

__all__ = ["HUMAN", "MAX_BODY", "MAX_WATCH_STEPS", "STATIC", "BadRequest", "Library", "Replay", "Sessions", "Table"]
__all__ += ["create_app", "run"]
LOCAL = ("127.0.0.1", "localhost", "::1")


def warm_up() -> None:
    """Play one move, so the engine's compiled code is ready (the first start compiles it: a minute or two)."""
    from rummy_env.env import raw_env

    env = raw_env()
    env.reset(seed=0)
    env.step(env.action_from_str(env.legal_actions()[0]))


def run(cfg: dict[str, Any]) -> int:
    """Serve the page (``configs/serve.yaml`` keys) until interrupted; returns the exit status."""
    import uvicorn

    from experiments.cli import Number, check_numbers

    check_numbers(cfg, {"port": Number(int, 0), "max_sessions": Number(int, 1)})
    host = str(cfg.get("host", "127.0.0.1"))
    if host not in LOCAL and not cfg.get("expose", False):
        raise ValueError(f"host={host} listens beyond this machine: add expose=true to mean it")
    if host not in LOCAL:
        print(f"warning: listening on {host}: anyone who can reach this machine can open tables and watch games")
    records = cfg.get("records", "games")
    app = create_app(records, cfg.get("checkpoints", "models"), cfg.get("max_sessions", 32), cfg.get("save", True))
    if cfg.get("warm", True):
        print("getting the game engine ready (the first start compiles it: a minute or two) ...", flush=True)
        warm_up()
    print(f"500 Rummy on http://{host}:{cfg['port']}  (records in {Path(records).resolve()})", flush=True)
    uvicorn.run(app, host=host, port=int(cfg["port"]), log_level=str(cfg.get("log_level", "warning")))
    return 0


def _hydra_main() -> None:
    import hydra
    from omegaconf import DictConfig, OmegaConf

    from experiments.cli import user_errors

    @hydra.main(version_base="1.3", config_path="../configs", config_name="serve")
    @user_errors
    def main(cfg: DictConfig) -> None:
        code = run(OmegaConf.to_container(cfg, resolve=True))  # type: ignore[arg-type]
        if code:
            sys.exit(code)

    main()


if __name__ == "__main__":
    _hydra_main()
