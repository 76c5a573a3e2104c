"""A point's tap target on a phone (issue 22): 12 points across a 360–390 px board leave each
column 21–23 px, so a target cannot be 44 px wide; it is its column's full width and its
whole half of the board's height (frame and half the middle strip included), and a tap
anywhere in it, on the point's number or on the dice, reaches the point."""

from __future__ import annotations

import pytest
from test_web_board import StandIn
from webstate import MATCH_ID, make_state

from boardgammon.engine import Board

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("width", "height"), [(360, 740), (390, 844)])
def test_each_point_target_is_its_column_over_its_whole_half_board(
    browser, static_url, output_dir, width, height
):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.add_init_script("localStorage.setItem('bg.lang', 'en')")
    StandIn(page, make_state(Board.initial(), dice=(3, 1)))
    page.goto(f"{static_url}/match/{MATCH_ID}")
    page.wait_for_selector("svg.board .hit.movable")
    board = page.locator("svg.board").bounding_box()
    boxes = page.eval_on_selector_all(
        "svg.board .hit",
        """els => els.map((e) => {
          const r = e.getBoundingClientRect();
          return [+e.dataset.point, r.x, r.y, r.width, r.height];
        })""",
    )
    columns = board["width"] * 40 / 652  # a point's column: 40 of the board's 652 units
    for point, _x, y, w, h in boxes:
        assert h == pytest.approx(board["height"] / 2, abs=0.5), point
        if 1 <= point <= 24:
            assert w == pytest.approx(columns, abs=0.5), point
            top = 13 <= point <= 24
            assert y == pytest.approx(board["y"] if top else board["y"] + h, abs=0.5), point
    # Neighbouring points' targets touch and never overlap: the width is all a column has.
    bottom = sorted((x, w) for p, x, _, w, _ in boxes if 7 <= p <= 12)
    for (x0, w0), (x1, _) in zip(bottom, bottom[1:], strict=False):
        assert x1 == pytest.approx(x0 + w0, abs=0.5)
    assert 19 < columns < 24  # the geometry limit docs/architecture.md states
    eight = next(b for b in boxes if b[0] == 8)
    # A tap on the point's number in the frame, below the triangle, selects its checkers.
    page.mouse.click(eight[1] + eight[3] / 2, eight[2] + eight[4] - 3)
    assert page.get_attribute('svg.board .hit[data-point="8"]', "class").split() == [
        "hit",
        "movable",
        "selected",
    ]
    page.screenshot(path=str(output_dir / f"tap-targets-{width}.png"))
    # A tap over the dice in the middle strip reaches the point below them (6: 3-1 sends
    # the selected checker from 8 to 5 or 7; 6 is neither, so it selects the 6 point).
    six = next(b for b in boxes if b[0] == 6)
    die = page.locator("svg.board .die").first.bounding_box()
    assert die["y"] < six[2] + 8 < die["y"] + die["height"]  # the die overlaps the target
    page.mouse.click(six[1] + six[3] / 2, six[2] + 8)
    assert "selected" in page.get_attribute('svg.board .hit[data-point="6"]', "class")
    context.close()
