"""A real HTTP server on 127.0.0.1 for the /metrics tests: python's http.server in a thread.

It serves `pages` in turn (the last one repeats), so counters advance between scrapes; a
`mode` makes it misbehave as real endpoints do: 404, a hang, chunked transfer, garbage.
Every request is counted in `hits`.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "metrics"


class MetricsServer:
    def __init__(self, *pages: str, mode: str = "ok", hang_s: float = 5.0) -> None:
        self.pages = [p if "\n" in p else (DATA / p).read_text() for p in pages]
        self.mode, self.hang_s, self.hits = mode, hang_s, 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet test output
                pass

            def do_GET(self) -> None:
                try:
                    self._answer()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a scrape timeout): what the hang tests want

            def _answer(self) -> None:
                owner.hits += 1
                page = owner.pages[min(owner.hits - 1, len(owner.pages) - 1)].encode()
                if owner.mode == "hang":
                    time.sleep(owner.hang_s)
                if owner.mode == "404" or self.path != "/metrics":
                    self.send_response(404)
                    self.send_header("Content-Length", "9")
                    self.end_headers()
                    self.wfile.write(b"Not Found")
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                if owner.mode == "chunked":
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for i in range(0, len(page), 1000):
                        part = page[i:i + 1000]
                        self.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                    self.wfile.write(b"0\r\n\r\n")
                    return
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/metrics"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> MetricsServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
