"""Make README's pictures: a drawn position (docs/img/table.png) and the web app (docs/img/web_app.png).

Usage: python scripts/make_pictures.py [--out docs/img]. The web app's screenshot needs Debian's
chromium and the playwright package (no browser download); without them only the table is drawn.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

import rummy_env

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = {  # a 3-player position in the middle of a hand: melds by several owners, jokers, a known card
    "hands": [
        ["2S", "4C", "5D", "3S", "JC", "KS", "KD", "9C"],
        ["3C", "9D", "TS", "QS", "6H"],
        ["AH", "6S", "7D", "QC", "4S", "3D"],
    ],
    "discard": ["6C", "4H", "7S", "4D", "QH", "AC", "TD", "2C", "JH"],
    "melds": [
        {"owner": 1, "cards": ["7H", "JK=8H", "9H", "TH"], "owners": [1, 1, 1, 2]},
        {"owner": 2, "cards": ["5C", "5H", "5S", "JK"], "owners": [2, 2, 2, 0]},
        {"owner": 0, "cards": ["8C", "8D", "8S"]},
    ],
    "known": [[], ["QS"], []],
    "scores": [135, 210, 95],
    "current_player": 0,
}


def draw_table(out: Path) -> Path:
    """A mid-hand position, seen by player_0, as PNG."""
    env = rummy_env.raw_env(players=3)
    env.reset(seed=7, options={"scenario": SCENARIO})
    takes = [a for a in env.legal_actions() if a.startswith("take") and a != "take 0"]
    env.step(env.action_from_str(takes[0] if takes else "draw"))  # a take below the top: its card must be melded
    path = out / "table.png"
    path.write_bytes(env.position(0).png())
    return path


def screenshot_app(out: Path) -> Path | None:
    """The web app in headless chromium, a person's game against two agents, a few moves in."""
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        chromium = None
    if chromium is None:
        print("no chromium/playwright: skipping the web app's screenshot")
        return None
    import uvicorn

    from experiments.serve import create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    records = Path(tempfile.mkdtemp())
    server = uvicorn.Server(
        uvicorn.Config(create_app(records, ROOT / "models"), host="127.0.0.1", port=port, log_level="warning")
    )
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    path = out / "web_app.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1220, "height": 1060})
        page.goto(f"http://127.0.0.1:{port}")
        page.wait_for_selector("#seat-1")
        page.select_option("#players", "3")
        page.fill("#seat-1", "strategic")
        page.fill("#seat-2", "search:32")
        page.fill("#seed", "3")
        page.click("#start")
        rng = np.random.default_rng(0)
        for _ in range(14):  # a few turns: draw or take, then a meld or a discard
            page.wait_for_selector("button.action")
            actions = page.locator("button.action").evaluate_all("nodes => nodes.map(n => n.dataset.action)")
            melds = [a for a in actions if a.startswith(("meld", "layoff"))]
            choice = melds[0] if melds else actions[int(rng.integers(len(actions)))]
            before = page.inner_html("#table")
            page.click(f'button.action[data-action="{choice}"]')
            page.wait_for_function("b => document.querySelector('#table').innerHTML !== b", arg=before)
        page.mouse.move(1200, 10)  # no button under the pointer (hover colours)
        page.screenshot(path=str(path))
        browser.close()
    server.should_exit = True
    return path


def main() -> None:
    """Write the pictures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "img"))
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    for path in (draw_table(out), screenshot_app(out)):
        if path is not None:
            print("wrote", path)


if __name__ == "__main__":
    main()
