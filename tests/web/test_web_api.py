"""api.js's request(): what reaches the page as the server's word and what is a failed
fetch (a refusal, a lost connection, an answer that is not JSON)."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize(
    ("status", "content_type", "body", "expected"),
    [
        (200, "application/json", json.dumps({"ok": 1}), ["ok", {"ok": 1}]),
        (200, "application/json", "", ["ok", None]),
        # A proxy's page or a cut answer with a success status: not the server's word (a
        # roll's proof read this way used to be checked as null and shown ✗ malformed).
        (200, "text/html", "<html>gateway</html>", ["ApiError", 200, "bad_response"]),
        (200, "application/json", '{"roll": {"seq": 1', ["ApiError", 200, "bad_response"]),
        (409, "application/json",
         json.dumps({"error": {"code": "anchor_registered", "message": "taken"}}),
         ["ApiError", 409, "anchor_registered"]),
        (502, "text/html", "<html>bad gateway</html>", ["ApiError", 502, "http_502"]),
    ],
    ids=["json", "empty", "html-200", "cut-json-200", "refusal", "proxy-502"],
)
def test_request_tells_the_servers_word_from_a_failed_fetch(module_page, status,
                                                          content_type, body, expected):
    module_page.route("**/api/thing", lambda route, request: route.fulfill(
        status=status, content_type=content_type, body=body))
    got = module_page.evaluate(
        """async () => {
        const api = await import('/static/api.js');
        try {
          return ["ok", await api.request("GET", "/api/thing")];
        } catch (err) {
          return [err instanceof api.ApiError ? "ApiError" : String(err), err.status, err.code];
        }
        }"""
    )
    assert got == expected


def test_a_closed_match_socket_cancels_the_reconnect_it_had_scheduled(module_page):
    """The connection drops, a reconnect is scheduled (500 ms), and the page closes the socket
    meanwhile (it left the match, or learnt there is none): no connection follows."""
    opened = []

    def server(ws):
        opened.append(ws)
        ws.close()

    module_page.route_web_socket("**/ws/matches/**", server)
    module_page.evaluate(
        """async () => {
        const api = await import('/static/api.js');
        const statuses = [];
        const socket = new api.MatchSocket("mat_x", () => {}, (s) => statuses.push(s));
        await new Promise((resolve) => {
          const wait = setInterval(() => {
            if (statuses.includes("closed")) { clearInterval(wait); resolve(); }
          }, 10);
        });
        socket.close();
        }"""
    )
    module_page.wait_for_timeout(1500)  # three times the first reconnect's delay
    assert len(opened) == 1
