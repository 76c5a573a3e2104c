"""The browser tests' shared page helpers: a page on the lobby, a player registered or a match
against the computer started from there, reading and tapping the board (web/board.js marks
every point, the bar and the viewer's tray with data-point and the classes movable / selected /
dest), and running code with the client's modules."""

from __future__ import annotations

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

MODULES = {"fd": "fairdice.js", "dl": "dicelog.js"}
"""The client's modules :func:`run_client` can import, by the name the code sees (files of
web/, served under /static/)."""


def new_page(browser, base: str, width: int = 800, motion: bool = False):
    """A page ``width`` px wide (1000 high) in English, unless the test sets another language,
    on the lobby of the server at ``base``."""
    # Without motion (prefers-reduced-motion) the other side's play is drawn at once, so a
    # test reads the board the server sent; tests of the step-by-step playback pass motion.
    context = browser.new_context(base_url=base, viewport={"width": width, "height": 1000},
                                  reduced_motion="no-preference" if motion else "reduce")
    context.add_init_script(
        "localStorage.getItem('bg.lang') || localStorage.setItem('bg.lang', 'en')")
    page = context.new_page()
    # The API's refusals, kept for a failing test's message (said).
    page.refusals = []
    page.on("response", lambda r: r.status >= 400 and "/api/" in r.url
            and page.refusals.append(f"{r.request.method} {r.url} {r.status}"))
    page.goto(base + "/")
    page.wait_for_selector("form.auth")
    return page


def register(page, name: str) -> None:
    """From the lobby: register ``name`` and wait until the page shows it signed in."""
    page.fill('input[name="username"]', name)
    page.fill('input[name="password"]', "correct horse battery")
    page.click('[data-action="register"]')
    page.wait_for_selector(f'[data-username="{name}"]')


def tap(page, point: int) -> None:
    page.click(f'svg.board .hit[data-point="{point}"]')


def points_with(page, cls: str) -> list[int]:
    """The points whose hit area has class `cls` (movable, selected or dest), ascending."""
    return sorted(page.eval_on_selector_all(
        f"svg.board .hit.{cls}", "els => els.map(e => +e.dataset.point)"))


def lit(page) -> list[int]:
    """The destinations lit for the selected checker."""
    return points_with(page, "dest")


def checkers(page, point: int) -> int:
    """The viewer's checkers drawn on `point` (the count label when more than five)."""
    return page.evaluate(
        """(p) => {
          const hit = document.querySelector(`svg.board .hit[data-point="${p}"] .column`);
          const x = +hit.getAttribute('x'), w = +hit.getAttribute('width');
          const y = +hit.getAttribute('y'), h = +hit.getAttribute('height');
          const within = (cx, cy) => cx > x && cx < x + w && cy > y && cy < y + h;
          const label = [...document.querySelectorAll('svg.board text.count.mine')]
            .find((t) => within(+t.getAttribute('x'), +t.getAttribute('y')));
          if (label) return +label.textContent;
          const all = document.querySelectorAll('svg.board circle.checker.mine');
          return [...all].filter((c) => within(+c.getAttribute('cx'), +c.getAttribute('cy')))
            .length;
        }""",
        point,
    )


def seen(page) -> dict:
    """What the match page offers its viewer right now."""
    return page.evaluate(
        """() => {
          const result = document.querySelector('section.result');
          const on = (a) => {
            const b = document.querySelector(`.controls [data-action="${a}"]`);
            return !!b && !b.disabled;
          };
          return {
            result: !!result && !result.hidden,
            roll: on('roll'), dance: on('dance'), send: on('send'),
            answer: on('accept-resign') ? 'accept-resign' : on('take') ? 'take' : null,
            movable: document.querySelectorAll('svg.board .hit.movable').length,
            complete: on('send') && document.querySelector('[data-action="send"]')
              .getAttribute('aria-disabled') === 'false',
            busy: !!document.querySelector('.controls button:disabled'),
          };
        }"""
    )


ACTION_TYPES = {"roll": "roll", "dance": "play", "send": "play", "double": "double",
                "take": "take", "drop": "drop", "accept-resign": "accept_resign",
                "decline-resign": "decline_resign"}
"""The API's action type (docs/api.md) that each control of the match page sends."""


def press(page, action: str, timeout: float | None = None) -> None:
    """Press the match page's control `action` and wait until the page has the server's answer
    to the action it sent and is ready for the next (no control disabled); `timeout` in ms
    (Playwright's default when None). The control's leaving the page is no such sign: after a
    roll the computer may win the opening roll and play it before the page draws the state
    between, and the next roll is ours again, with the same button. An answer that refuses
    the action counts too: the caller sees the control again and may press it again."""
    kind = ACTION_TYPES[action]

    def sent(response) -> bool:
        request = response.request
        if request.method != "POST" or not request.url.endswith("/actions"):
            return False
        body = request.post_data_json
        return isinstance(body, dict) and body.get("type") == kind

    try:
        with page.expect_response(sent, timeout=timeout):
            page.click(f'.controls [data-action="{action}"]')
        page.wait_for_function("() => !document.querySelector('.controls button:disabled')",
                               timeout=timeout)
    except PlaywrightTimeoutError as exc:
        raise PlaywrightTimeoutError(f"{action!r} pressed, no answer: {said(page)}") from exc


def said(page) -> str:
    """What the page said (its status line) and the API's last refusals: what a test that
    waited in vain needs to be understood."""
    status = page.eval_on_selector_all(".status", "els => els.map(e => e.textContent)")
    refusals = getattr(page, "refusals", [])[-3:]
    return f"its status said {status}; the API's last refusals: {refusals}"


def wait_gone(page, action: str, timeout: float | None = None) -> None:
    """Wait until the control `action` has left the page (the server answered); `timeout` in
    ms (Playwright's default when None)."""
    try:
        page.wait_for_selector(f'.controls [data-action="{action}"]', state="detached",
                               timeout=timeout)
    except PlaywrightTimeoutError as exc:
        raise PlaywrightTimeoutError(f"{action!r} stayed on the page; {said(page)}") from exc


def play_by_tapping(page) -> list[tuple[int, int]]:
    """Build the play on the board tap by tap, whatever the dice: the rearmost movable checker
    to its furthest lit destination (bearing off when it can), until nothing is left to move
    (complete, or sent already in auto mode). Returns the taps made as (source, destination,
    or None when the checker moved at once)."""
    taps = []
    while (now := seen(page))["movable"] and not now["busy"]:
        movable = points_with(page, "movable")
        if not movable:  # the page drew a new state between the two reads: look again
            page.wait_for_timeout(50)
            continue
        source = max(movable)
        tap(page, source)
        destinations = lit(page)
        if destinations:
            tap(page, min(destinations))
        taps.append((source, min(destinations) if destinations else None))
    return taps


def play_the_computer(page, length: int = 1) -> None:
    """From the lobby: in as a guest, then a ``length``-point match against the computer at the
    form's level (the page moves on to the match; the caller waits for what it needs)."""
    page.click('[data-action="guest"]')
    page.wait_for_selector('form.computer [data-action="play-computer"]')
    page.select_option('form.computer select[name="length"]', str(length))
    page.click('form.computer [data-action="play-computer"]')


def run_client(page, body: str, arg=None, modules: tuple[str, ...] = ("fd",)):
    """Evaluate ``body``, the body of an async JavaScript function of ``arg``, with each of
    ``modules`` (names in :data:`MODULES`) imported under its name; the function's result."""
    imports = "".join(f"const {name} = await import('/static/{MODULES[name]}');"
                      for name in modules)
    return page.evaluate("async (arg) => { " + imports + body + "}", arg)
