"""HTTP routers, one module per concern; :func:`boardgammon.server.app.create_app` includes them."""
