"""Agents for 500 Rummy behind one batched interface: heuristics, trained policies and a human."""

from .arena import GameResults, play_games, wilson_interval
from .base import Agent, HeuristicAgent
from .greedy import GreedyAgent
from .human import HumanAgent
from .policy import PolicyAgent
from .random_agent import RandomAgent
from .registry import AGENTS, make_agent
from .strategic import StrategicAgent, StrategicParams

__all__ = [
    "Agent",
    "HeuristicAgent",
    "RandomAgent",
    "GreedyAgent",
    "StrategicAgent",
    "StrategicParams",
    "PolicyAgent",
    "HumanAgent",
    "AGENTS",
    "make_agent",
    "play_games",
    "GameResults",
    "wilson_interval",
]
