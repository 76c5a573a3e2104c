"""A point's tap target on a phone (issue 22): 12 points across a 360–390 px board leave each
column 21–23 px, so a target is at least 44 px wide, centred on its column (neighbouring
targets overlap) and its whole half of the board high, and one handler resolves a tap: the
column under it when that is a legal target, else the nearest legal target within 22 px of
its column centre, else the column under it as before (docs/architecture.md, the board on a
phone)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_web_board import StandIn
from webpage import checkers, points_with
from webstate import MATCH_ID, make_state

from boardgammon.engine import Board

pytestmark = pytest.mark.browser

PHONES = [(360, 740), (390, 844)]
# 5-2 with two checkers on the 13 point: selected, they can go to 11 or 8, two columns apart
# with nothing legal between or beside them (the rest wait on the 6 point, far to the right).
LONE = Board.from_points({13: 2, 6: 13}, {1: 2, 2: 13})


def open_board(browser, static_url, width, height, state, flip=False):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.add_init_script("localStorage.setItem('bg.lang', 'en')")
    if flip:
        page.add_init_script("localStorage.setItem('bg.board.flip', '1')")
    StandIn(page, state)
    page.goto(f"{static_url}/match/{MATCH_ID}")
    page.wait_for_selector("svg.board .hit.movable")
    return context, page


def column(page, point: int) -> dict:
    """The screen box of `point`'s column (the drawn triangle's width)."""
    return page.eval_on_selector(
        f'svg.board .hit[data-point="{point}"] .column',
        "e => { const r = e.getBoundingClientRect();"
        " return {x: r.x, y: r.y, w: r.width, h: r.height, cx: r.x + r.width / 2}; }",
    )


def tap_at(page, point: int, dx: float) -> None:
    """Tap `dx` px right of `point`'s column centre, a third of the way into its half."""
    box = column(page, point)
    page.mouse.click(box["cx"] + dx, box["y"] + box["h"] / 3)


@pytest.mark.parametrize(("width", "height"), PHONES)
def test_every_target_is_44_px_wide_centred_on_its_column_over_its_half_board(
    browser, static_url, output_dir, width, height
):
    context, page = open_board(browser, static_url, width, height,
                               make_state(Board.initial(), dice=(3, 1)))
    board = page.locator("svg.board").bounding_box()
    boxes = page.eval_on_selector_all(
        "svg.board .hit",
        """els => els.map((e) => {
          const r = e.getBoundingClientRect();
          const c = e.querySelector('.column').getBoundingClientRect();
          return [+e.dataset.point, r.x, r.y, r.width, r.height, c.x + c.width / 2, c.width];
        })""",
    )
    assert sorted(b[0] for b in boxes) == list(range(26))
    columns = board["width"] * 40 / 652  # a point's column: 40 of the board's 652 units
    assert 19 < columns < 24  # why the targets are wider than their columns
    for point, x, y, w, h, centre, drawn in boxes:
        assert w >= 44 and h >= 44, (point, w, h)
        assert w < 45 + 1e-6, point  # no wider than a tap needs
        assert h == pytest.approx(board["height"] / 2, abs=0.5), point
        assert board["x"] - 0.5 <= x and x + w <= board["x"] + board["width"] + 0.5, point
        if 1 <= point <= 25:  # the tray's, at the board's edge, leans inwards
            assert x + w / 2 == pytest.approx(centre, abs=0.5), point
        if 1 <= point <= 24:
            assert drawn == pytest.approx(columns, abs=0.5), point
            top = 13 <= point <= 24
            assert y == pytest.approx(board["y"] if top else board["y"] + h, abs=0.5), point
    # Neighbouring targets overlap: each reaches past its neighbour's column edge.
    bottom = sorted((x, w) for p, x, _, w, *_ in boxes if 7 <= p <= 12)
    for (x0, w0), (x1, _) in zip(bottom, bottom[1:], strict=False):
        assert x1 < x0 + w0 - 10
    # A tap on the point's number in the frame, below the triangle, selects its checkers.
    eight = column(page, 8)
    page.mouse.click(eight["cx"], board["y"] + board["height"] - 3)
    assert page.get_attribute('svg.board .hit[data-point="8"]', "class").split() == [
        "hit",
        "movable",
        "selected",
    ]
    page.screenshot(path=str(output_dir / f"tap-targets-{width}.png"))
    # A tap over the dice in the middle strip reaches the point below them (6: 3-1 sends
    # the selected checker from 8 to 5 or 7; 6 is another source, so it selects the 6 point).
    six = column(page, 6)
    die = page.locator("svg.board .die").first.bounding_box()
    assert die["y"] < six["y"] + 8 < die["y"] + die["height"]  # the die is over the target
    page.mouse.click(six["cx"], six["y"] + 8)
    assert points_with(page, "selected") == [6]
    context.close()


@pytest.mark.parametrize(("width", "height", "flip"), [*[(w, h, False) for w, h in PHONES],
                                                       (390, 844, True)])
def test_a_tap_beside_a_lone_destination_lands_on_it(
    browser, static_url, output_dir, width, height, flip
):
    context, page = open_board(browser, static_url, width, height,
                               make_state(LONE, dice=(5, 2)), flip)
    tap_at(page, 13, 0)
    assert points_with(page, "dest") == [8, 11]
    eight, nine = column(page, 8), column(page, 9)
    # 15 px off the 8 point's centre towards the 9 point (on its left; right when flipped),
    # no legal target: the tap lands on 9's column and goes to 8, the nearest lit one.
    towards = 1 if nine["cx"] > eight["cx"] else -1
    assert towards == (1 if flip else -1)
    x = eight["cx"] + 15 * towards
    assert nine["x"] <= x <= nine["x"] + nine["w"]
    page.screenshot(path=str(output_dir / f"tap-snap-{width}{'-flipped' if flip else ''}.png"))
    tap_at(page, 8, 15 * towards)
    assert (checkers(page, 13), checkers(page, 8)) == (1, 1)
    context.close()


@pytest.mark.parametrize(("width", "height"), PHONES)
def test_a_tap_reaching_no_legal_target_deselects_as_before(browser, static_url, width, height):
    context, page = open_board(browser, static_url, width, height, make_state(LONE, dice=(5, 2)))
    tap_at(page, 13, 0)
    ten, eleven = column(page, 10), column(page, 11)
    # Halfway between the 10 and 9 points: 1.5 columns (31–35 px) from both lit points.
    away = (ten["cx"] - eleven["cx"]) * 1.5
    assert abs(away) > 22
    tap_at(page, 11, away)
    assert points_with(page, "selected") == [] and points_with(page, "dest") == []
    assert (checkers(page, 13), checkers(page, 8), checkers(page, 11)) == (2, 0, 0)
    context.close()


@pytest.mark.parametrize(("width", "height"), PHONES)
def test_a_tap_on_a_legal_column_picks_it_even_beside_a_legal_neighbour(
    browser, static_url, width, height
):
    context, page = open_board(browser, static_url, width, height,
                               make_state(Board.initial(), dice=(3, 1)))
    tap_at(page, 8, 0)
    assert points_with(page, "dest") == [5, 7]
    six, seven = column(page, 6), column(page, 7)
    step = seven["cx"] - six["cx"]  # one column, signed
    # On the 6 point (another source), 8 px from its centre towards the lit 7 point, whose
    # centre is 13–15 px away: the 6 point is picked, its checker selected, nothing moved.
    tap_at(page, 6, 8 * (1 if step > 0 else -1))
    assert points_with(page, "selected") == [6]
    assert (checkers(page, 6), checkers(page, 7)) == (5, 0)
    # On the 7 point... no longer lit (the 6 point's checker is selected: 5 and 3 are).
    assert points_with(page, "dest") == [3, 5]
    tap_at(page, 8, 0)  # back to the 8 point: 5 and 7 lit again
    # On the lit 7 point, 8 px from its centre towards the selected 8 point: 8/7.
    eight = column(page, 8)
    tap_at(page, 7, 8 * (1 if eight["cx"] > seven["cx"] else -1))
    assert (checkers(page, 8), checkers(page, 7)) == (2, 1)
    context.close()


POINTS = st.sets(st.integers(0, 25), max_size=6)  # 0 the tray, 25 the bar


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sources=POINTS, destinations=POINTS, x=st.floats(0, 652), y=st.floats(0, 452),
       snap=st.sampled_from([0.0, 18.0, 42.0]))
def test_a_tap_goes_to_its_legal_column_else_the_nearest_legal_within_reach(
    module_page, sources, destinations, x, y, snap
):
    """board.js tapAt against its definition, in board units (652 × 452; `snap` is 22 px on a
    desktop board, a 390 px and a 360 px one)."""
    columns, got = module_page.evaluate(
        """async ([sources, destinations, x, y, snap]) => {
          const { COLUMNS, tapAt } = await import('/static/board.js');
          const view = { sources: new Set(sources), destinations: new Set(destinations) };
          return [COLUMNS, tapAt(x, y, view, snap)];
        }""",
        [sorted(sources), sorted(destinations), x, y, snap],
    )
    half = [c for c in columns if c["bottom"] == (y >= 226)]
    legal = sources | destinations
    under = next((c["point"] for c in half if c["left"] <= x < c["right"]), None)
    reach = {c["point"]: abs(c["centre"] - x) for c in half if c["point"] in legal}
    reach = {p: d for p, d in reach.items() if d <= snap}
    if under in legal:
        assert got == under
    elif reach:
        assert got in reach and reach[got] == min(reach.values())
    else:
        assert got == under  # as before: the column under the tap, or nothing off the points
