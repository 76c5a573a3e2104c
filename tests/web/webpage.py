"""Reading and tapping the board of a Playwright page (web/board.js marks every point, the bar
and the viewer's tray with data-point and the classes movable / selected / dest), starting a
match against the computer from the lobby, and running code with the client's modules."""

from __future__ import annotations

MODULES = {"fd": "fairdice.js", "dl": "dicelog.js"}
"""The client's modules :func:`run_client` can import, by the name the code sees (files of
web/, served under /static/)."""


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


def wait_gone(page, action: str, timeout: float | None = None) -> None:
    """Wait until the control `action` has left the page (the server answered); `timeout` in
    ms (Playwright's default when None)."""
    page.wait_for_selector(f'.controls [data-action="{action}"]', state="detached",
                           timeout=timeout)


def play_by_tapping(page) -> list[tuple[int, int]]:
    """Build the play on the board tap by tap, whatever the dice: the rearmost movable checker
    to its furthest lit destination (bearing off when it can), until nothing is left to move
    (complete, or sent already in auto mode). Returns the taps made as (source, destination,
    or None when the checker moved at once)."""
    taps = []
    while (now := seen(page))["movable"] and not now["busy"]:
        source = max(points_with(page, "movable"))
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
