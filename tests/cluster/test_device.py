"""``experiments.train train.device=auto|cpu|cuda``: checked up front, and on a CPU machine auto is exactly cpu."""

from __future__ import annotations

import pandas as pd
import pytest
import torch
from sb3_contrib import MaskablePPO

from experiments.ppo import check_device
from experiments.train import train
from tests.train.conftest import TINY, compose_train


@pytest.mark.parametrize("device", ["gpu", "cuda0", "CPU", ""])
def test_a_misspelt_device_is_refused(device):
    with pytest.raises(ValueError, match=r"train\.device must be auto, cpu or cuda"):
        check_device(device)


@pytest.mark.skipif(torch.cuda.is_available(), reason="torch sees a GPU here")
def test_cuda_without_a_gpu_is_refused_before_training(tmp_path):
    with pytest.raises(ValueError, match="torch sees no GPU"):
        train(compose_train(TINY + ["train.device=cuda", "train.steps=512"]), tmp_path / "run")
    assert not (tmp_path / "run").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="auto picks the GPU here")
def test_auto_on_a_cpu_machine_is_the_cpu_run(tmp_path):
    small = TINY + ["algo=ppo_mlp", "algo.policy_kwargs.net_arch=[16]", "train.steps=512"]
    runs = {d: tmp_path / d for d in ("cpu", "auto")}
    results = {d: train(compose_train(small + [f"train.device={d}"]), out) for d, out in runs.items()}
    assert results["cpu"] == results["auto"]
    curves = [pd.read_csv(out / "tb" / "progress.csv").filter(like="train/") for out in runs.values()]
    assert len(curves[0]) >= 2 and curves[0].equals(curves[1])  # the same losses, update after update
    params = [
        torch.cat([p.flatten() for p in MaskablePPO.load(str(out / "final.zip")).policy.parameters()])
        for out in runs.values()
    ]
    assert torch.equal(*params)
