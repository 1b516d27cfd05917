"""The MaskablePPO models of train and distill: building one from the config, warm starts, the learning-rate
schedule, the device check, the evaluation against a heuristic and where the latest model is copied.

``experiments.train`` and ``experiments.distill`` both import these; neither imports the other's module for them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf
from sb3_contrib import MaskablePPO

from agents import PolicyAgent, make_agent, play_games, wilson_interval
from agents.arena import Progress
from agents.card_policy import CardPolicy, card_policy_kwargs
from agents.checkpoints import table_id, table_label, trained_rules
from agents.lean_ppo import LeanPPO
from agents.pile_view import pile_top_kwargs
from rummy_env import Rules
from rummy_env.rules import side_of


def evaluate(
    policy,
    rules: Rules,
    opponent: str,
    games: int,
    seed: int,
    max_steps: int,
    deterministic: bool = True,
    progress: Callable[[Progress], None] | None = None,
    team: bool = False,
) -> dict:
    """Play ``games`` games of ``policy`` against ``opponent`` in every other seat (learner seat rotates).

    With ``team`` (a partnership learner) the policy holds both seats of a side (the sides alternate) against a side
    of ``opponent``; the win rate and score difference are then its side's.
    """
    learner = PolicyAgent(policy, deterministic=deterministic, name="learner")
    opp = make_agent(opponent, rules, seed=seed)
    n = rules.players
    seats = np.ones((games, n), dtype=np.int64)
    if team:
        seats[side_of(np.arange(n))[None, :] == (np.arange(games) % 2)[:, None]] = 0
    else:
        seats[np.arange(games), np.arange(games) % n] = 0
    deals = np.arange(games, dtype=np.uint64) + seed
    res = play_games(rules, [learner, opp], seats, deals, batch=min(games, 500), max_steps=max_steps, progress=progress)
    first = np.argmax(seats == 0, axis=1)  # the learner's (first) seat: under partnership its side's share and score
    rows = np.arange(games)
    win = res.win_shares()[rows, first]
    if team:
        sides = res.side_scores()
        score, others = sides[rows, side_of(first)], sides[rows, 1 - side_of(first)]
    else:
        score = res.scores[rows, first]
        others = (res.scores.sum(1) - score) / (n - 1)
    low, high = wilson_interval(float(win.sum()), games)
    return {
        "opponent": str(opponent),
        "games": games,
        "win_rate": float(win.mean()),
        "ci_low": low,
        "ci_high": high,
        "score_diff": float((score - others).mean()),
        "truncated": int(res.truncated.sum()),
        "hands": float(res.hands.mean()),
    }


class LinearSchedule:
    """Learning rate from ``start`` down to ``start * final`` over the run (picklable, unlike a lambda)."""

    def __init__(self, start: float, final: float) -> None:
        self.start, self.final = start, final

    def __call__(self, progress_remaining: float) -> float:
        """The learning rate at this point of training."""
        return self.start * (self.final + (1.0 - self.final) * progress_remaining)


def build_model(cfg: DictConfig, env, rules: Rules, out: Path | None = None) -> MaskablePPO:
    """A fresh MaskablePPO for the config (policy, hyper-parameters, TensorBoard folder)."""
    algo = cfg.algo
    kwargs = {k: v for k, v in OmegaConf.to_container(algo.policy_kwargs).items() if v is not None}
    if algo.policy == "card":
        policy, policy_kwargs = CardPolicy, card_policy_kwargs(rules, **kwargs)
    elif algo.policy == "mlp":
        policy, policy_kwargs = "MlpPolicy", {"net_arch": list(kwargs.get("net_arch", [256, 256]))}
        if kwargs.get("pile_depths"):
            policy_kwargs |= pile_top_kwargs(rules, int(kwargs["pile_depths"]), bool(kwargs.get("discard_view")))
    else:
        raise ValueError(f"algo.policy must be 'card' or 'mlp', got {algo.policy!r}")
    lr = float(algo.learning_rate)
    if algo.lr_schedule == "linear":  # SB3 passes the fraction of train.steps still to go
        learning_rate = LinearSchedule(lr, float(algo.lr_final_fraction))
    elif algo.lr_schedule == "constant":
        learning_rate = lr
    else:
        raise ValueError(f"algo.lr_schedule must be 'constant' or 'linear', got {algo.lr_schedule!r}")
    return model_class(algo)(
        policy,
        env,
        learning_rate=learning_rate,
        n_steps=algo.n_steps,
        batch_size=algo.batch_size,
        n_epochs=algo.n_epochs,
        gamma=algo.gamma,
        gae_lambda=algo.gae_lambda,
        clip_range=algo.clip_range,
        ent_coef=algo.ent_coef,
        vf_coef=algo.vf_coef,
        max_grad_norm=algo.max_grad_norm,
        target_kl=algo.target_kl,
        normalize_advantage=algo.normalize_advantage,
        policy_kwargs=policy_kwargs,
        seed=cfg.train.seed,
        device=cfg.train.device,
        verbose=0,
    )


def model_class(algo: DictConfig) -> type[MaskablePPO]:
    """``algo.loop``'s class: ``sb3`` (sb3-contrib's MaskablePPO) or ``lean`` (agents.lean_ppo.LeanPPO, same maths)."""
    loops = {"sb3": MaskablePPO, "lean": LeanPPO}
    loop = str(algo.get("loop", "sb3"))
    if loop not in loops:
        raise ValueError(f"algo.loop must be 'sb3' or 'lean', got {loop!r}")
    return loops[loop]


def check_device(device: str) -> None:
    """Refuse a ``train.device`` other than auto, cpu or cuda[:N], and cuda where torch sees no GPU."""
    if not re.fullmatch(r"auto|cpu|cuda(:\d+)?", device):
        raise ValueError(f"train.device must be auto, cpu or cuda[:N], got {device!r}")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"train.device={device} but torch sees no GPU (torch {torch.__version__}); use auto or cpu")


def load_init(model: MaskablePPO, init: str) -> None:
    """Copy the policy weights (actor and critic) of the checkpoint ``init`` into ``model`` (``train.init``)."""
    path = Path(init)
    if not path.is_file():
        raise ValueError(f"train.init: no checkpoint at {init!r}")
    loaded = MaskablePPO.load(str(path), device="cpu")
    source, target = loaded.policy.state_dict(), model.policy.state_dict()
    inputs = getattr(model.policy.features_extractor, "narrower", ())  # the input widths this one widens
    if source.keys() != target.keys() or any(not _fits(source[k], target[k], inputs) for k in target):
        trained = trained_rules(loaded)
        made_for = f" (it was trained for {table_label(trained)})" if trained is not None else ""
        raise ValueError(
            f"train.init={init} holds another network than this run's algo and rules{made_for}: "
            "train with the algo= and env= it was distilled or trained with "
            "(or algo=ppo_mlp_pile / ppo_mlp_discard from a narrower checkpoint of the same table)"
        )
    model.policy.load_state_dict({k: _widened(source[k], target[k]) for k in target})


def _fits(source: torch.Tensor, target: torch.Tensor, inputs: tuple[int, ...]) -> bool:
    """Same shape, or a first layer whose input is one of this table's narrower inputs (``ppo_mlp`` into
    ``ppo_mlp_pile`` into ``ppo_mlp_discard``: each view's columns follow the ones before)."""
    if source.shape == target.shape:
        return True
    return source.dim() == 2 and source.shape[0] == target.shape[0] and source.shape[1] in inputs


def _widened(source: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """``source`` in ``target``'s shape: the new input columns start at zero, so the network plays as before."""
    if source.shape == target.shape:
        return source
    wide = target.new_zeros(target.shape)
    wide[:, : source.shape[1]] = source
    return wide


def latest_path(latest: str | None, rules: Rules) -> Path | None:
    """Where the final model is copied: ``train.latest`` for the default table, else ``<stem>-<table id>.zip``."""
    if not latest:
        return None
    path, table = Path(latest), table_id(rules)
    return path.with_name(f"{path.stem}-{table}{path.suffix}") if table else path
