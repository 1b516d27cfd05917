"""MaskablePPO with a lean inner loop: the same algorithm and checkpoints, without the per-step distribution objects.

``LeanPPO`` is sb3-contrib's ``MaskablePPO`` (same hyper-parameters, rollout
buffer, callbacks, logger, ``save``/``load``) whose two hot loops are written
directly in torch: the rollout samples from masked log-probabilities instead of
building a ``MaskableCategorical`` per step, and the update computes the clipped
surrogate, entropy and value loss from one masked ``log_softmax`` per
minibatch, with no ``.item()`` per minibatch. The maths are MaskablePPO's
(illegal logits set to ``-1e8``, entropy over the legal actions), so a
checkpoint written by one loads into the other and into ``agents.make_agent``.
``benchmarks/train_speed.py`` measures both loops side by side.
"""

from __future__ import annotations

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import explained_variance, obs_as_tensor
from stable_baselines3.common.vec_env import VecEnv

from .policy import ILLEGAL_LOGIT, logits_and_values


def masked_log_probs(logits: th.Tensor, mask: th.Tensor) -> th.Tensor:
    """Log-probabilities over the legal actions (illegal ones get ``ILLEGAL_LOGIT`` first, as MaskablePPO does)."""
    return th.log_softmax(th.where(mask, logits, th.full_like(logits, ILLEGAL_LOGIT)), dim=-1)


def entropy(log_probs: th.Tensor, mask: th.Tensor) -> th.Tensor:
    """Entropy of each row's distribution over its legal actions."""
    return -th.where(mask, log_probs.exp() * log_probs, th.zeros_like(log_probs)).sum(-1)


class LeanPPO(MaskablePPO):
    """``MaskablePPO`` whose rollout and update loops skip SB3's per-step distribution objects (see module doc)."""

    def collect_rollouts(  # type: ignore[override]  # MaskablePPO's signature, its masked buffer
        self,
        env: VecEnv,
        callback: BaseCallback,
        rollout_buffer: MaskableRolloutBuffer,
        n_rollout_steps: int,
        use_masking: bool = True,
    ) -> bool:
        """Fill the rollout buffer as ``MaskablePPO.collect_rollouts`` does, sampling from masked log-probabilities."""
        self.policy.set_training_mode(False)
        rollout_buffer.reset()
        callback.on_rollout_start()
        for _ in range(n_rollout_steps):
            masks = env.action_masks()  # type: ignore[attr-defined]  # RummyVecEnv's, as MaskablePPO asks for them
            with th.no_grad():
                obs = obs_as_tensor(self._last_obs, self.device)  # type: ignore[arg-type]  # set by SB3's learn
                logits, values = logits_and_values(self.policy, obs)
                log_probs = masked_log_probs(logits, th.as_tensor(masks, device=self.device))
                drawn = th.multinomial(log_probs.exp(), 1).flatten()
                chosen = log_probs.gather(1, drawn[:, None]).flatten()
            actions = drawn.cpu().numpy()
            new_obs, rewards, dones, infos = env.step(actions)
            self.num_timesteps += env.num_envs
            callback.update_locals(locals())
            if not callback.on_step():
                return False
            self._update_info_buffer(infos, dones)
            self._bootstrap_truncated(rewards, dones, infos)
            rollout_buffer.add(
                self._last_obs,
                actions.reshape(-1, 1),
                rewards,
                self._last_episode_starts,
                values,
                chosen,
                action_masks=masks,
            )
            self._last_obs, self._last_episode_starts = new_obs, dones  # type: ignore[assignment]
        with th.no_grad():
            values = self.policy.predict_values(obs_as_tensor(new_obs, self.device))  # type: ignore[arg-type]
        rollout_buffer.compute_returns_and_advantage(last_values=values, dones=dones)
        callback.on_rollout_end()
        return True

    def _bootstrap_truncated(self, rewards: np.ndarray, dones: np.ndarray, infos: list[dict]) -> None:
        """A game cut by ``max_steps`` is not lost: add the discounted value of where it stood (SB3 issue #633)."""
        for idx in np.flatnonzero(dones):
            info = infos[idx]
            if info.get("TimeLimit.truncated", False) and info.get("terminal_observation") is not None:
                terminal = self.policy.obs_to_tensor(info["terminal_observation"])[0]
                with th.no_grad():
                    rewards[idx] += self.gamma * float(self.policy.predict_values(terminal)[0, 0])

    def train(self) -> None:
        """One PPO update over the rollout buffer: MaskablePPO's losses, one masked log-softmax per minibatch."""
        if self.clip_range_vf is not None:
            raise ValueError("LeanPPO does not clip the value function: leave clip_range_vf unset")
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        clip = self.clip_range(self._current_progress_remaining)  # type: ignore[operator]  # a schedule after setup
        stats: list[th.Tensor] = []
        for _ in range(self.n_epochs):
            kls = []
            for batch in self.rollout_buffer.get(self.batch_size):
                mask = batch.action_masks.bool()
                logits, values = logits_and_values(self.policy, batch.observations)
                log_probs = masked_log_probs(logits, mask)
                log_prob = log_probs.gather(1, batch.actions.long().reshape(-1, 1)).flatten()
                advantages = batch.advantages
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                ratio = th.exp(log_prob - batch.old_log_prob)
                policy_loss = -th.min(advantages * ratio, advantages * th.clamp(ratio, 1 - clip, 1 + clip)).mean()
                value_loss = th.nn.functional.mse_loss(batch.returns, values)
                entropy_loss = -entropy(log_probs, mask).mean()
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                with th.no_grad():
                    log_ratio = log_prob - batch.old_log_prob
                    kl = th.mean(th.exp(log_ratio) - 1 - log_ratio)
                    clipped = th.mean((th.abs(ratio - 1) > clip).float())
                kls.append(kl)
                stats.append(th.stack([policy_loss.detach(), value_loss.detach(), entropy_loss.detach(), kl, clipped]))
                if self.target_kl is not None and kl > 1.5 * self.target_kl:
                    break
                self.policy.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
            self._n_updates += 1
            if self.target_kl is not None and kls and kls[-1] > 1.5 * self.target_kl:
                break
        self._log_update(th.stack(stats).mean(0).tolist(), clip, loss.item())

    def _log_update(self, means: list[float], clip: float, loss: float) -> None:
        """The update's means under MaskablePPO's ``train/*`` names."""
        policy_loss, value_loss, entropy_loss, kl, clipped = means
        buffer = self.rollout_buffer
        self.logger.record("train/entropy_loss", entropy_loss)
        self.logger.record("train/policy_gradient_loss", policy_loss)
        self.logger.record("train/value_loss", value_loss)
        self.logger.record("train/approx_kl", kl)
        self.logger.record("train/clip_fraction", clipped)
        self.logger.record("train/loss", loss)
        self.logger.record(
            "train/explained_variance", explained_variance(buffer.values.flatten(), buffer.returns.flatten())
        )
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip)
