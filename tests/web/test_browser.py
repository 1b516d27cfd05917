"""The web page in a real headless browser (Debian's chromium, driven by Playwright), used as people use it.

Cards are clicked in the hand (and on the pile), then one of the moves the page offers; two people sit at one
table in two browser contexts while a spectator watches, every JSON and SVG answer checked for hidden cards;
a reload mid-game; a phone-sized screen. Skipped with a reason when /usr/bin/chromium or the playwright
package is absent (``.ci/run`` installs both).
"""

from __future__ import annotations

import io
import shutil
import socket
import threading
import time

import numpy as np
import pytest

from tests.web.conftest import MODEL, assert_hides, hidden_cards

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FAST = "localStorage.setItem('rummy.frame_ms', '30'); localStorage.setItem('rummy.poll_ms', '150');"

pytestmark = [
    pytest.mark.skipif(shutil.which("chromium") is None, reason="no chromium browser (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def server(folders):
    """The app served by uvicorn on a free port of 127.0.0.1, in a thread: (address, app)."""
    import uvicorn

    from experiments.serve import create_app

    records, checkpoints = folders
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(records, checkpoints)
    app_server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=app_server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not app_server.started and time.time() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app
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


def open_page(browser, address, viewport=(1240, 1000), fast=True):
    """A page of its own browser context (its own storage), failing the test on a script error."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    if fast:
        context.add_init_script(FAST)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda err: page.errors.append(str(err)))
    page.goto(address)
    page.wait_for_selector("#seat-1", state="attached")  # the options came (the form is folded at a table)
    return page


@pytest.fixture
def page(browser, server):
    page = open_page(browser, server[0])
    yield page
    page.context.close()
    assert not page.errors, page.errors


def not_blank(png: bytes) -> None:
    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(float)
    assert pixels.std() > 20, "the screenshot is (nearly) one colour"
    assert len(np.unique(pixels.reshape(-1, 3)[::97], axis=0)) > 20


def start(page, players, seats, seed, rules='{"episode": "hand"}', names=()):
    page.select_option("#players", str(players))
    for p, seat in enumerate(seats):
        page.fill(f"#seat-{p}", seat)
    for p, name in enumerate(names):
        if name:
            page.fill(f"#name-{p}", name)
    page.fill("#seed", str(seed))
    page.fill("#rules", rules)
    page.click("#start")
    page.wait_for_selector("#table svg")
    wait_idle(page)


def wait_idle(page):
    """Until no request runs and no move is being shown."""
    page.wait_for_function("!document.body.classList.contains('busy') && document.querySelector('#replaying').hidden")


def choices(page):
    return page.evaluate("state.data ? state.data.choices : []")


def pick(options, prefer=("meld", "layoff_run", "layoff_group", "joker_run", "joker_group")):
    """A move a simple player makes: a meld or a lay-off, else a discard (not the joker), else the first."""
    choice = next((c for c in options if c["kind"] in prefer), None)
    discards = [c for c in options if c["kind"] == "discard"]
    return choice or next((c for c in discards if c["hand"] != ["JK"]), discards[0] if discards else options[0])


def play_by_cards(page, choice):
    """Select the cards ``choice`` uses (hand, then pile), check the page offers it in words, and click it."""
    for card in choice["hand"]:
        free = page.locator(f'#hand button.card[data-card="{card}"][aria-pressed="false"]')
        free.first.click()
    if choice["depth"]:
        page.click(f'#pile button.card[data-depth="{choice["depth"]}"]')
    button = page.locator(f'#choices button.choice[data-action="{choice["action"]}"]')
    assert button.inner_text() == choice["words"]
    moves = page.evaluate("state.data.moves")
    button.click()
    page.wait_for_function("m => state.data && state.data.moves > m", arg=moves)
    wait_idle(page)


def test_play_a_whole_hand_by_selecting_cards(page):
    start(page, 2, ["human", "greedy"], 11)
    clicks = 0
    while page.get_attribute("#status", "data-over") != "yes" and clicks < 300:
        assert page.get_attribute("#status", "data-mine") == "yes"
        play_by_cards(page, pick(choices(page)))
        clicks += 1
    assert page.get_attribute("#status", "data-over") == "yes", "the hand did not end"
    assert clicks > 5 and "Game over" in page.inner_text("#status")
    assert page.is_visible("#summary") and page.locator("#summary tbody tr").count() == 2
    numbers = page.locator("#log li").evaluate_all("nodes => nodes.map(n => n.value)")
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= clicks
    assert page.locator("#log details").count() == 1 and "Hand 1" in page.inner_text("#log summary")
    assert page.is_visible("#record-link")
    not_blank(page.screenshot(full_page=True))


def test_nothing_selected_offers_the_moves_without_hand_cards(page):
    start(page, 2, ["human", "random"], 4)
    offered = page.locator("#choices button.choice").evaluate_all("nodes => nodes.map(n => n.dataset.action)")
    assert "draw" in offered and "take 0" in offered and not any(a.startswith("discard") for a in offered)
    assert page.locator("#choices button.choice").first.inner_text().startswith("draw from the stock")
    page.click('#choices button.choice[data-action="draw"]')
    wait_idle(page)
    card = page.locator("#hand button.card").first
    card.click()
    assert card.get_attribute("aria-pressed") == "true"
    assert page.locator("#choices button.choice").count() >= 1  # at least its discard
    uses = {c["action"]: c["hand"] for c in choices(page)}
    for action in page.locator("#choices button.choice").evaluate_all("nodes => nodes.map(n => n.dataset.action)"):
        assert card.get_attribute("data-card") in uses[action]
    card.click()  # unselected: back to the moves that use no card (none after drawing)
    assert page.locator("#choices button.choice").count() == 0 and "Select cards" in page.inner_text("#hint")


def test_call_rummy_by_name(page):
    start(page, 3, ["human", "greedy", "greedy"], 2)  # holding back every meld, player_0 gets a "Rummy!" window
    while not any(c["kind"] == "rummy" for c in choices(page)):
        assert page.get_attribute("#status", "data-over") != "yes", "no Rummy! window came"
        options = choices(page)
        play_by_cards(page, pick(options, prefer=("draw",)) if options[0]["kind"] == "draw" else pick(options, ()))
    call = next(c for c in choices(page) if c["kind"] == "rummy")
    pile = page.evaluate("state.data.view.discard")
    card = pile[-1 - call["depth"]]
    shown = ("10" if card[0] == "T" else card[0]) + {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[card[1]]
    assert call["words"].startswith(f"Rummy! Call {shown}") and "it plays in" in call["words"]
    page.click(f'#pile button.card[data-depth="{call["depth"]}"]')
    assert page.locator("#choices button.rummy").count() >= 1
    play_by_cards(page, {**call, "depth": 0})  # the pile card is selected already
    assert any(c["kind"] == "meld" or c["kind"].startswith("layoff") for c in choices(page))
    assert "must meld" in page.inner_html("#table")


def test_an_illegal_choice_shows_a_message_next_to_the_table(page):
    start(page, 2, ["human", "random"], 1, rules="")
    page.evaluate("guarded(() => play('discard ZZ'))")  # what a stale page could send
    page.wait_for_selector("#error:not([hidden])")
    assert "discard ZZ" in page.inner_text("#error")
    box, table = page.locator("#error").bounding_box(), page.locator("#table").bounding_box()
    assert 0 <= box["y"] - (table["y"] + table["height"]) < 40  # right under the table, not at the page's top
    page.evaluate("guarded(() => play('discard AS'))")
    page.wait_for_function("document.querySelector('#error').textContent.includes('is not a legal move now')")
    page.locator("#choices button.choice").first.click()
    page.wait_for_selector("#error[hidden]", state="attached")


def test_buttons_are_disabled_while_a_request_runs(page):
    start(page, 2, ["human", "greedy"], 3)
    held = []
    page.route("**/act", lambda route: held.append(route))  # the move's request waits here until let through
    page.locator("#all-moves summary").click()
    page.locator('#choices button.choice[data-action="draw"]').click()
    page.wait_for_function("document.body.classList.contains('busy')")
    assert page.locator("#choices button.choice:not([disabled])").count() == 0
    assert page.locator("#actions button.action:not([disabled])").count() == 0
    assert page.locator("#actions button.action").count() > 1
    moves = page.evaluate("state.data.moves")
    page.evaluate("document.querySelector('#choices button.choice').click()")  # a second click is not sent
    while not held:
        page.wait_for_timeout(20)
    assert len(held) == 1
    held[0].continue_()
    wait_idle(page)
    assert page.evaluate("state.data.moves") == moves + 1


def test_watch_agents_play(page):
    start(page, 2, ["strategic", "random"], 5)
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
    page.select_option("#record-file", "games.jsonl")
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


def test_a_reload_mid_game_returns_to_it(page):
    start(page, 3, ["human", "greedy", "random"], 8, rules="")
    for _ in range(2):
        play_by_cards(page, pick(choices(page)))
    url, moves, svg = page.url, page.evaluate("state.data.moves"), page.inner_html("#table")
    assert "#game=" in url and "token=" in url
    page.reload()
    page.wait_for_selector("#table svg")
    wait_idle(page)
    assert page.url == url and page.evaluate("state.data.moves") == moves and page.inner_html("#table") == svg
    play_by_cards(page, pick(choices(page)))  # the game goes on
    page.click("#home")  # the setup form; "back" returns to the table
    page.wait_for_selector("#board", state="hidden")
    page.go_back()
    page.wait_for_selector("#board:not([hidden]) #table svg")
    assert page.url == url


def test_two_people_and_a_spectator_at_one_table(browser, server):
    """A whole hand by two people in two browser contexts, a spectator watching (about 30 s; in the default run, so
    that .ci/run plays it)."""
    address, app = server
    host = open_page(browser, address)
    start(host, 3, ["human", "human", "greedy"], 21, names=["Ann", "Bo"])
    key = host.evaluate("state.game")
    game = app.state.sessions.items[key]
    links = host.locator("input.link").evaluate_all("nodes => nodes.map(n => n.value)")
    assert len(links) == 3 and len(set(links)) == 3  # Ann's, Bo's, the spectators'
    guest = open_page(browser, links[1])
    spectator = open_page(browser, links[2])
    pages = {0: host, 1: guest, None: spectator}
    checked = []
    for viewer, pg in pages.items():

        def check(response, viewer=viewer):
            if "/api/games" in response.url and response.ok:
                assert_hides(response.text(), hidden_cards(game, viewer))
                checked.append(viewer)

        pg.on("response", check)
    guest.wait_for_selector("#table svg")
    spectator.wait_for_selector("#table svg")
    moves = 0
    while not game.over and moves < 120:
        seat = game.seat
        person = pages[seat]
        person.wait_for_function("document.querySelector('#status').dataset.mine === 'yes'")
        wait_idle(person)
        other = pages[1 - seat]
        assert other.locator("#choices button").count() == 0
        play_by_cards(person, pick(choices(person)))
        moves += 1
    assert game.over, "the hand did not end"
    for pg in pages.values():
        pg.wait_for_function("document.querySelector('#status').dataset.over === 'yes'")
        title = pg.inner_text("#summary-title")
        assert pg.is_visible("#summary") and ("went out" in title or "nobody went out" in title), title
    assert spectator.locator("#hand button").count() == 0 and not spectator.is_visible("#play")
    assert {0, 1, None} <= set(checked) and len(checked) > 20
    record = host.evaluate("state.data.record")
    assert record and record.startswith("web-")
    host.click("#record-open")
    host.wait_for_function(
        "document.querySelector('#replay-table svg') || !document.querySelector('#replay-error').hidden"
    )
    assert host.is_visible("#replay-table svg"), host.inner_text("#replay-error")
    for pg in pages.values():
        assert not pg.errors, pg.errors
        pg.context.close()


def test_a_phone_sized_screen_has_no_sideways_scrolling(browser, server):
    phone = open_page(browser, server[0], viewport=(390, 844))
    width = "document.documentElement.scrollWidth"
    assert phone.evaluate(width) <= 390
    start(phone, 3, ["human", "strategic", "greedy"], 3, rules="")
    phone.click('#choices button.choice[data-action="draw"]')
    wait_idle(phone)
    assert phone.evaluate(width) <= 390, "the page scrolls sideways"
    hand = phone.locator("#hand button.card")
    assert hand.count() >= 7
    for k in range(hand.count()):
        box = hand.nth(k).bounding_box()
        assert box["width"] >= 30 and box["x"] >= 0 and box["x"] + box["width"] <= 390
    hand.first.click()
    assert phone.locator("#choices button.choice").count() >= 1
    box = phone.locator("#choices button.choice").first.bounding_box()
    assert box["x"] + box["width"] <= 390
    not_blank(phone.screenshot())
    assert not phone.errors, phone.errors
    phone.context.close()
