"""The game server: FastAPI app (:mod:`.app`), persistence (:mod:`.db`, :mod:`.models`, Alembic
migrations under ``migrations/``), the dice record service (:mod:`.dice_record`) and one router
per concern under :mod:`.routes`."""
