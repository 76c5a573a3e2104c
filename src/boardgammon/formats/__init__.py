"""Match file formats, pure text in and out: Jellyfish ``.mat`` (:mod:`.mat`).

The JSON record is :meth:`boardgammon.engine.Match.to_json` / ``Match.from_json``.
"""

from .mat import MatFormatError, read_mat, write_mat

__all__ = ["MatFormatError", "read_mat", "write_mat"]
