"""The game server: FastAPI app (:mod:`.app`); routes and the WebSocket (thin:
:mod:`.auth`, :mod:`.lobby`, :mod:`.match_routes`, :mod:`.websocket`, :mod:`.routes`) over the
match service (:mod:`.match_service`) and its repository (:mod:`.match_repository`, the only
SQL for matches); the dice record (:mod:`.dice_record`); every table in :mod:`.tables`
(Alembic migrations under ``migrations/``); refusals in :mod:`.refusals`, mapped to HTTP and
WebSocket at the edge in :mod:`.errors`."""
