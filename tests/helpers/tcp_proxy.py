"""A TCP proxy a test cuts and restores: fault injection between the server and its database.

>>> with CuttableProxy(("127.0.0.1", 5432)) as proxy:  # doctest: +SKIP
...     proxy.cut()      # every connection through it drops, new ones are closed at once
...     proxy.restore()  # new connections go through again
...     proxy.hold()     # a partition: bytes are held, neither forwarded nor refused
...     proxy.release()  # the held bytes go on
"""

from __future__ import annotations

import contextlib
import socket
import threading


class CuttableProxy:
    """Forwards ``127.0.0.1:port`` (:attr:`port`, chosen free) to ``target``, one thread per
    direction of each connection."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._cut = False
        self._closed = False
        self._flowing = threading.Event()
        self._flowing.set()
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        """Drop every open connection; refuse (accept, then close) new ones until restored."""
        with self._lock:
            self._cut = True
            for sock in self._open:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._open.clear()

    def restore(self) -> None:
        """Let new connections through again."""
        with self._lock:
            self._cut = False

    def hold(self) -> None:
        """Stop forwarding: every byte sent either way, on open and new connections, waits
        (nothing fails) until :meth:`release`."""
        self._flowing.clear()

    def release(self) -> None:
        """Forward again, the held bytes first."""
        self._flowing.set()

    def close(self) -> None:
        self._closed = True
        self._flowing.set()
        self.cut()
        self._listener.close()

    def __enter__(self) -> CuttableProxy:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                if self._cut:
                    client.close()
                    continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                self._flowing.wait()
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
