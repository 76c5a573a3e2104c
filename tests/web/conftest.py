"""Fixtures for the browser tests: Debian's Chromium driven by Playwright, a static server for
the client's modules, and a real Boardgammon server with a temporary database."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WEB_DIR = Path(__file__).resolve().parents[2] / "src" / "boardgammon" / "web"
OUTPUT_DIR = Path(__file__).resolve().parents[2] / "test-output" / "web"


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session (skips when Chromium is not installed)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium is not installed at {CHROMIUM} (run `make system-deps`)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


class _StaticHandler(SimpleHTTPRequestHandler):
    """The client as the server mounts it: files under /static/, index.html for every other
    page; plus an empty page at /blank to import modules from."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self.path.startswith("/static/"):
            self.path = self.path.removeprefix("/static")
        elif self.path != "/blank":
            self.path = "/index.html"
        else:
            body = b"<!doctype html><meta charset=utf-8><title>blank</title>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="session")
def static_url() -> Iterator[str]:
    """Base URL of a server for the client's modules (http://127.0.0.1 is a secure context,
    so Web Crypto is available)."""
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(_StaticHandler, directory=str(WEB_DIR))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def module_page(browser, static_url):
    """A page on the static server's origin, ready to import the client's modules."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{static_url}/blank")
    yield page
    context.close()


@pytest.fixture(scope="session")
def output_dir() -> Path:
    """Where screenshots go for people to review (git-ignored test-output/web/)."""
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    return OUTPUT_DIR


@pytest.fixture
def live_server(tmp_path, monkeypatch) -> Iterator[str]:
    """A real Boardgammon server (create_app under uvicorn, in a thread) with a fresh SQLite
    database; its base URL. The computer waits 0.1 s before each action so its moves can be
    followed; sign-in limits are raised for tests that register several players. The analysis
    worker's 2-ply pass is off: it would replace a result under the page being tested and spend
    the cores (it has tests of its own, tests/analysis/test_analysis_server.py)."""
    monkeypatch.setenv("BOARDGAMMON_ANALYSIS_DEEP_PLIES", "off")

    from boardgammon.server.app import create_app
    from boardgammon.server.runtime import GameConfig
    from boardgammon.server.settings import Settings
    from tests.helpers.servers import serving_in_thread

    app = create_app(
        Settings(database_url=f"sqlite:///{tmp_path / 'web.sqlite3'}"),
        # No grace after the start for the devices' waits (its own tests are in
        # tests/server/test_dice_v2_held.py): the pages' tests of the waits count 3 s.
        GameConfig(bot_delay_s=0.1, login_rate=1000.0, login_burst=1000,
                   address_login_rate=1000.0, address_login_burst=1000, link_grace_s=0.0),
    )
    with serving_in_thread(app) as port:
        yield f"http://127.0.0.1:{port}"
