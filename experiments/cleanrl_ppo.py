"""Masked PPO on ``RummyVectorEnv`` in one file, CleanRL style: a learner seat against ``greedy``.

    python -m experiments.cleanrl_ppo                                   # 200k env steps, a few minutes
    python -m experiments.cleanrl_ppo --total-steps 20000 --compare-sb3 # also SB3 MaskablePPO, same budget

Read top to bottom: the arguments, the agent (an MLP actor-critic whose illegal
actions get a -1e8 logit), then the loop: collect ``num_steps`` steps in each of
``num_envs`` games (the gymnasium vector env over the batched engine, opponents
stepped in batch, games that end dealt again in the same step), compute GAE
advantages, and update with the clipped PPO loss on shuffled minibatches. It
prints the episodes' mean reward and win rate and the env steps per second
(learner decisions, opponents' moves not counted); ``--compare-sb3`` then trains
sb3_contrib's MaskablePPO on ``RummyVecEnv`` with the same env, budget and PPO
settings and prints both rates in one table (``time`` counts everything each
trainer does: env steps, forward passes and updates).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from agents import make_agent
from rummy_env import Rules
from rummy_env.gym_vector import RummyVectorEnv


@dataclass
class Args:
    """The run's settings (each one a ``--flag``)."""

    total_steps: int = 200_000  # learner decisions over all envs
    num_envs: int = 64
    num_steps: int = 128  # steps per env per rollout
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    minibatches: int = 4
    epochs: int = 4
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256
    opponent: str = "greedy"
    episode: str = "hand"  # "hand": every hand is an episode (quicker signal); "game": games to 500
    seed: int = 0
    compare_sb3: bool = False


def parse_args(argv: list[str] | None = None) -> Args:
    """``Args`` from the command line (``--total-steps 20000``, ``--compare-sb3``...)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, default in vars(Args()).items():
        flag = "--" + name.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, action="store_true")
        else:
            parser.add_argument(flag, type=type(default), default=default)
    return Args(**vars(parser.parse_args(argv)))


def mlp(inputs: int, hidden: int, outputs: int) -> nn.Sequential:
    """Two tanh hidden layers."""
    return nn.Sequential(
        nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, outputs)
    )


class Agent(nn.Module):
    """Actor-critic MLP; illegal actions are masked out of the policy."""

    def __init__(self, obs_dim: int, actions: int, hidden: int) -> None:
        super().__init__()
        self.critic = mlp(obs_dim, hidden, 1)
        self.actor = mlp(obs_dim, hidden, actions)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """State values."""
        return self.critic(obs).squeeze(-1)

    def act(
        self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """A sampled legal action (or the given one), its log-probability, the entropy and the value."""
        logits = self.actor(obs).masked_fill(~mask, -1e8)
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)


def train(args: Args) -> dict[str, float]:
    """Train with masked PPO; returns the env steps per second, the last episodes' mean reward and win rate."""
    torch.manual_seed(args.seed)
    rules = Rules(episode=args.episode)
    envs = RummyVectorEnv(args.num_envs, rules, opponents=[make_agent(args.opponent, rules, seed=1)], seed=args.seed)
    obs_dim, actions = envs.single_observation_space.shape[0], int(envs.single_action_space.n)
    agent = Agent(obs_dim, actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    n, t_max = args.num_envs, args.num_steps
    obs_buf = torch.zeros((t_max, n, obs_dim))
    mask_buf = torch.zeros((t_max, n, actions), dtype=torch.bool)
    act_buf, logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((t_max, n)) for _ in range(5))

    obs_np, info = envs.reset(seed=args.seed)
    obs, mask = torch.as_tensor(obs_np), torch.as_tensor(info["action_mask"])
    done, episode_return = torch.zeros(n), torch.zeros(n)
    finished: list[float] = []  # returns of the episodes that ended
    steps, env_seconds, start = 0, 0.0, time.perf_counter()
    while steps < args.total_steps:
        for t in range(t_max):  # 1. collect a rollout
            obs_buf[t], mask_buf[t], done_buf[t] = obs, mask, done
            with torch.no_grad():
                action, logp, _, value = agent.act(obs, mask)
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            tick = time.perf_counter()
            obs_np, reward, terminated, truncated, info = envs.step(action.numpy())
            env_seconds += time.perf_counter() - tick
            rew_buf[t] = torch.as_tensor(reward)
            obs, mask = torch.as_tensor(obs_np), torch.as_tensor(info["action_mask"])
            done = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            episode_return += rew_buf[t]
            finished += episode_return[done > 0].tolist()
            episode_return *= 1 - done
            steps += n

        with torch.no_grad():  # 2. GAE advantages (an episode's end stops the bootstrap)
            advantages = torch.zeros((t_max, n))
            last, next_value, next_done = torch.zeros(n), agent.value(obs), done
            for t in reversed(range(t_max)):
                if t < t_max - 1:
                    next_value, next_done = val_buf[t + 1], done_buf[t + 1]
                delta = rew_buf[t] + args.gamma * next_value * (1 - next_done) - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * (1 - next_done) * last
                advantages[t] = last
            returns = advantages + val_buf

        b_obs, b_mask = obs_buf.reshape(-1, obs_dim), mask_buf.reshape(-1, actions)
        b_act, b_logp = act_buf.reshape(-1).long(), logp_buf.reshape(-1)
        b_adv, b_ret = advantages.reshape(-1), returns.reshape(-1)
        size = n * t_max
        for _ in range(args.epochs):  # 3. clipped PPO updates on shuffled minibatches
            order = torch.randperm(size)
            for part in order.split(size // args.minibatches):
                _, logp, entropy, value = agent.act(b_obs[part], b_mask[part], b_act[part])
                ratio = (logp - b_logp[part]).exp()
                adv = (b_adv[part] - b_adv[part].mean()) / (b_adv[part].std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * ((value - b_ret[part]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        mean, won = recent_results(finished)
        sps = steps / (time.perf_counter() - start)
        print(
            f"steps {steps:>9,}  episodes {len(finished):>6,}  mean reward {mean:+.3f}  won {won:.1%}  SPS {sps:,.0f}"
        )
    mean, won = recent_results(finished)
    sps = steps / (time.perf_counter() - start)
    return {"sps": sps, "env_sps": steps / env_seconds, "mean_reward": mean, "win_rate": won}


def recent_results(returns: list[float], last: int = 200) -> tuple[float, float]:
    """Mean return and share of wins (a positive return) of the last ``last`` episodes."""
    recent = np.array(returns[-last:] or [0.0])
    return float(recent.mean()), float((recent > 0).mean())


def train_sb3(args: Args) -> dict[str, float]:
    """The same budget with sb3_contrib's MaskablePPO on ``RummyVecEnv`` (same env, opponent and PPO settings)."""
    from sb3_contrib import MaskablePPO

    from rummy_env.vector import RummyVecEnv

    rules = Rules(episode=args.episode)
    venv = RummyVecEnv(args.num_envs, rules, opponents=[make_agent(args.opponent, rules, seed=1)], seed=args.seed)
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=args.learning_rate,
        n_steps=args.num_steps,
        batch_size=args.num_envs * args.num_steps // args.minibatches,
        n_epochs=args.epochs,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        clip_range=args.clip,
        ent_coef=args.ent_coef,
        vf_coef=args.vf_coef,
        max_grad_norm=args.max_grad_norm,
        policy_kwargs={"net_arch": [args.hidden, args.hidden]},
        seed=args.seed,
        device="cpu",
    )
    start = time.perf_counter()
    model.learn(total_timesteps=args.total_steps)
    return {"sps": model.num_timesteps / (time.perf_counter() - start)}


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    """Train, optionally beside SB3, and print the env steps per second of each."""
    args = parse_args(argv)
    results = {"cleanrl_ppo (RummyVectorEnv)": train(args)}
    if args.compare_sb3:
        results["sb3_contrib MaskablePPO (RummyVecEnv)"] = train_sb3(args)
    print(f"\n{args.num_envs} envs, {args.total_steps:,} learner steps against {args.opponent}, one process:\n")
    print("| trainer | env steps/s (whole training loop) |")
    print("|---|---:|")
    for name, row in results.items():
        print(f"| {name} | {row['sps']:,.0f} |")
    return results


if __name__ == "__main__":
    main()
