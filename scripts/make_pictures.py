"""Make README's pictures: a drawn position (docs/img/table.png) and the web app (docs/img/web_table_*.png).

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


def screenshot_app(out: Path) -> list[Path]:
    """The web app in headless chromium at desktop and phone size, a person's game against two agents."""
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        chromium = None
    if chromium is None:
        print("no chromium/playwright: skipping the web app's screenshots")
        return []
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
    paths = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        for name, size in (("web_table_desktop.png", (1220, 1300)), ("web_table_phone.png", (390, 844))):
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            page.add_init_script("localStorage.setItem('rummy.frame_ms', '30')")
            page.goto(f"http://127.0.0.1:{port}")
            page.wait_for_selector("#seat-1")
            page.select_option("#players", "3")
            page.fill("#seat-1", "strategic")
            page.fill("#seat-2", "greedy")
            page.fill("#seed", "3")
            page.click("#start")
            for _ in range(6):  # a few turns: draw or take, then a meld, a lay-off or a discard
                _wait_idle(page)
                if page.is_visible("#summary-next"):
                    page.click("#summary-next")
                    continue
                choices = page.evaluate("state.data.choices")
                placing = [c for c in choices if c["kind"].startswith(("meld", "layoff"))]
                discards = [c for c in choices if c["kind"] == "discard" and c["hand"] != ["JK"]]
                page.evaluate("a => guarded(() => play(a))", (placing or discards or choices)[0]["action"])
            _wait_idle(page)
            choices = page.evaluate("state.data.choices")
            shown = max(choices, key=lambda c: (len(c["hand"]) + (c["depth"] or 0), c["kind"] != "discard"))
            for card in shown["hand"]:  # the cards of a move selected: the moves they make are offered in words
                page.locator(f'#hand button.card[data-card="{card}"][aria-pressed="false"]').first.click()
            if shown["depth"]:
                page.click(f'#pile button.card[data-depth="{shown["depth"]}"]')
            _wait_idle(page)
            page.mouse.move(size[0] - 5, 5)  # no button under the pointer (hover colours)
            path = out / name
            page.screenshot(path=str(path))
            paths.append(path)
        browser.close()
    server.should_exit = True
    return paths


def _wait_idle(page) -> None:
    """Until a position is shown, no request runs and no move is being replayed."""
    page.wait_for_function(
        "state.data && !document.body.classList.contains('busy') && document.querySelector('#replaying').hidden"
    )


def main() -> None:
    """Write the pictures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "img"))
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    for path in (draw_table(out), *screenshot_app(out)):
        print("wrote", path)


if __name__ == "__main__":
    main()
