"""The web app of ``python -m experiments.serve``: tables of people and agents, watching, replays.

``library`` (the folders the page may read, requests to rules), ``moves`` (the legal moves in
words), ``tables`` (games, replays and their sessions), ``app`` (the routes and the app factory).
"""
