"""A local stand-in for Prolific's submissions API (http.server on 127.0.0.1), recording every request.

It speaks the documented shape: ``GET /api/v1/submissions/?study=<id>`` answers ``results`` two at
a time with ``_links.next.href`` (absolute, like Prolific's); ``POST
/api/v1/submissions/<id>/transition/`` takes APPROVE, or REJECT with a rejection category and a
message of at least 100 characters (otherwise 400), and moves the submission on.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

PAGE = 2
TOKEN = "test-token-123"


@dataclass
class Received:
    method: str
    path: str
    authorization: str | None
    body: dict | None = None


@dataclass
class State:
    submissions: list[dict] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    # Tricks a hostile or broken server could play: a next-page link or a redirect to another host.
    next_link_to: str | None = None
    redirect_to: str | None = None


class Handler(BaseHTTPRequestHandler):
    server: FakeServer

    def log_message(self, *args) -> None:  # quiet tests
        pass

    def _reply(self, status: int, payload: dict | None = None, headers: dict | None = None) -> None:
        body = json.dumps(payload or {}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _record(self, body: dict | None = None) -> Received:
        received = Received(self.command, self.path, self.headers.get("Authorization"), body)
        self.server.state.received.append(received)
        return received

    def do_GET(self) -> None:
        self._record()
        state = self.server.state
        if self.headers.get("Authorization") != f"Token {TOKEN}":
            return self._reply(401, {"error": {"detail": "Invalid token."}})
        parts = urlsplit(self.path)
        if parts.path != "/api/v1/submissions/":
            return self._reply(404, {"error": {"detail": "Not found."}})
        query = parse_qs(parts.query)
        study, page = query.get("study", [""])[0], int(query.get("page", ["1"])[0])
        found = [s for s in state.submissions if s["study_id"] == study]
        chunk = found[(page - 1) * PAGE : page * PAGE]
        following = None
        if page * PAGE < len(found):
            host = state.next_link_to or f"http://127.0.0.1:{self.server.server_port}"
            following = f"{host}/api/v1/submissions/?study={study}&page={page + 1}"
        links = {"self": {"href": self.path}, "next": {"href": following}}
        self._reply(200, {"results": chunk, "_links": links, "meta": {"count": len(found)}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self._record(body)
        state = self.server.state
        if state.redirect_to:
            return self._reply(307, headers={"Location": state.redirect_to + self.path})
        if self.headers.get("Authorization") != f"Token {TOKEN}":
            return self._reply(401, {"error": {"detail": "Invalid token."}})
        parts = self.path.strip("/").split("/")  # api v1 submissions <id> transition
        submission = next((s for s in state.submissions if len(parts) == 5 and s["id"] == parts[3]), None)
        if submission is None or parts[4] != "transition":
            return self._reply(404, {"error": {"detail": "Not found."}})
        if body.get("action") == "REJECT" and (
            not body.get("rejection_category") or len(body.get("message", "")) < 100
        ):
            return self._reply(400, {"error": {"detail": "message must be at least 100 characters"}})
        if submission["status"] == "AWAITING REVIEW":
            submission["status"] = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}[body["action"]]
        self._reply(200, {"id": submission["id"], "status": submission["status"]})


class FakeServer(ThreadingHTTPServer):
    state: State

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}"

    @property
    def api(self) -> str:
        return f"{self.url}/api/v1/"


def submission(sid: str, participant: str, study: str = "study1", status: str = "AWAITING REVIEW") -> dict:
    return {"id": sid, "participant_id": participant, "study_id": study, "status": status}


def serve() -> FakeServer:
    server = FakeServer(("127.0.0.1", 0), Handler)
    server.state = State()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def fake_prolific():
    server = serve()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def elsewhere():
    """Another host (port): the token must never reach it."""
    server = serve()
    yield server
    server.shutdown()
    server.server_close()
