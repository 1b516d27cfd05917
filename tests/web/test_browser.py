"""The web page in a real headless browser (Debian's chromium, driven by Playwright): click through a hand, replay.

Skipped with a reason when /usr/bin/chromium or the playwright package is absent (``.ci/run`` installs both).
"""

from __future__ import annotations

import io
import shutil
import socket
import threading
import time

import numpy as np
import pytest

from tests.web.conftest import MODEL

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = [
    pytest.mark.skipif(shutil.which("chromium") is None, reason="no chromium browser (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def server(folders):
    """The app served by uvicorn on a free port of 127.0.0.1, in a thread."""
    import uvicorn

    from experiments.serve import create_app

    records, checkpoints = folders
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(create_app(records, checkpoints), host="127.0.0.1", port=port, log_level="warning")
    app_server = uvicorn.Server(config)
    thread = threading.Thread(target=app_server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not app_server.started and time.time() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    app_server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    """Headless chromium."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield browser
        browser.close()


@pytest.fixture
def page(browser, server):
    page = browser.new_page(viewport={"width": 1240, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(server)
    page.wait_for_selector("#seat-1")
    yield page
    page.close()
    assert not errors, errors


def not_blank(png: bytes) -> None:
    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(float)
    assert pixels.std() > 20, "the screenshot is (nearly) one colour"
    assert len(np.unique(pixels.reshape(-1, 3)[::97], axis=0)) > 20


def test_play_a_whole_hand_by_clicking(page):
    page.select_option("#players", "2")
    page.fill("#seat-0", "human")
    page.fill("#seat-1", "greedy")
    page.fill("#seed", "11")
    page.fill("#rules", '{"episode": "hand"}')
    page.click("#start")
    page.wait_for_selector("#table svg")
    clicks = 0
    while page.get_attribute("#status", "data-over") != "yes" and clicks < 400:
        buttons = page.locator("button.action")
        buttons.first.wait_for()
        actions = buttons.evaluate_all("nodes => nodes.map(n => n.dataset.action)")
        choice = next((a for a in actions if a.startswith(("meld", "layoff", "rummy"))), None)
        choice = choice or next((a for a in actions if a.startswith("discard")), actions[0])
        before = page.inner_html("#table")
        page.click(f'button.action[data-action="{choice}"]')
        page.wait_for_function("b => document.querySelector('#table').innerHTML !== b", arg=before)
        clicks += 1
    assert page.get_attribute("#status", "data-over") == "yes", "the hand did not end"
    assert clicks > 5
    assert "Game over" in page.inner_text("#status")
    assert page.locator("#log li").count() >= clicks
    not_blank(page.screenshot(full_page=True))


def test_call_rummy_by_clicking(page):
    page.select_option("#players", "3")
    page.fill("#seat-1", "greedy")
    page.fill("#seat-2", "greedy")
    page.fill("#seed", "2")  # holding back every meld, player_0 is asked in a "Rummy!" window
    page.fill("#rules", '{"episode": "hand"}')
    page.click("#start")
    page.wait_for_selector("button.action")
    while page.locator("button.action.rummy").count() == 0:
        assert page.get_attribute("#status", "data-over") != "yes", "no Rummy! window came"
        actions = page.locator("button.action").evaluate_all("nodes => nodes.map(n => n.dataset.action)")
        choice = next((a for a in actions if a.startswith("discard")), actions[0])
        before = page.inner_html("#table")
        page.click(f'button.action[data-action="{choice}"]')
        page.wait_for_function("b => document.querySelector('#table').innerHTML !== b", arg=before)
    assert page.inner_text("button.action.rummy").startswith("Rummy!")
    page.click("button.action.rummy")
    page.wait_for_selector('button.action[data-action^="meld"]')
    assert "must meld" in page.inner_html("#table")


def test_an_illegal_choice_shows_a_message_and_the_game_goes_on(page):
    page.fill("#seat-1", "random")
    page.click("#start")
    page.wait_for_selector("button.action")
    page.evaluate("guarded(() => play('discard ZZ'))")  # what a stale page could send
    page.wait_for_selector("#error:not([hidden])")
    assert "discard ZZ" in page.inner_text("#error")
    page.locator("button.action").first.click()
    page.wait_for_selector("#error[hidden]", state="attached")


def test_watch_agents_play(page):
    page.fill("#seat-0", "strategic")
    page.fill("#seat-1", "random")
    page.fill("#rules", '{"episode": "hand"}')
    page.click("#start")
    page.wait_for_selector("#watch:not([hidden])")
    page.click("#watch-step")
    page.wait_for_function("document.querySelectorAll('#log li').length === 1")
    page.select_option("#watch-speed", "60")
    page.click("#watch-play")
    page.wait_for_function("document.querySelectorAll('#log li').length > 10")
    page.click("#watch-pause")
    moves = page.locator("#log li").count()
    time.sleep(0.3)
    assert page.locator("#log li").count() <= moves + 1  # paused (one request may have been in flight)


def test_replay_a_record_forwards_and_backwards(page):
    page.click("#tab-replay")
    page.wait_for_selector("#record-game option", state="attached")
    page.select_option("#record-checkpoint", MODEL.name)  # its probabilities beside each decision
    page.click("#replay-open")
    page.wait_for_selector("#replay-table svg")
    assert page.locator("#replay-probs tbody tr").count() >= 1 and page.is_visible("#replay-probs")
    assert page.locator("#replay-probs tr.chosen").count() == 1
    assert page.get_attribute("#replay-step", "data-step") == "0"
    first = page.inner_html("#replay-table")
    for step in (1, 2, 3):
        page.click("#replay-next")
        page.wait_for_selector(f'#replay-step[data-step="{step}"]')
    assert page.inner_html("#replay-table") != first
    page.click("#replay-prev")
    page.wait_for_selector('#replay-step[data-step="2"]')
    page.click("#replay-first")
    page.wait_for_selector('#replay-step[data-step="0"]')
    assert page.inner_html("#replay-table") == first
    page.click("#replay-last")
    page.wait_for_function("document.querySelector('#replay-move').textContent === 'end of the game'")
    not_blank(page.screenshot(full_page=True))
