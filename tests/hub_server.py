"""A local stand-in for the Hugging Face Hub: the part of its API that a push of small files uses.

What huggingface_hub 2.4 sends for ``create_repo`` and ``create_commit`` (read from its hf_api.py and
_commit_api.py):

- ``POST /api/repos/create`` {name, organization, type, visibility}: 200 with the repo's URL, 409 when
  it exists (``exist_ok`` takes that as done);
- ``POST /api/validate-yaml`` {content, repoType}: a README.md's metadata, before anything is uploaded;
- ``POST /api/datasets/{namespace}/{name}/preupload/{revision}`` {files: [{path, sample, size}]}: this
  server answers ``regular`` for every file, so the contents come inline in the commit (the real Hub
  answers ``lfs`` for Parquet files, whose contents huggingface_hub then sends to the Hub's storage
  through hf_xet: not imitated here);
- ``POST /api/datasets/{namespace}/{name}/commit/{revision}``: NDJSON, a header line then one
  ``file`` line per file with its content in base64; answered with the commit's URL and id.

Everything it receives is kept: ``requests`` (method, path, headers with lower-case names), ``repos`` (name → private),
``files`` (repo → path → bytes, decoded from the commit). ``redirect_to`` scripts the next answers
as a 307 to another address, to show that a client does not follow it. Anything else is a 404.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPO_PATH = re.compile(r"^/api/datasets/(?P<repo>[^/]+/[^/]+)/(?P<verb>preupload|commit)/(?P<revision>[^/?]+)")


class HubServer(ThreadingHTTPServer):
    def __init__(self, redirect_to: str | None = None) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.redirect_to = redirect_to
        self.requests: list[dict] = []
        self.repos: dict[str, bool] = {}
        self.files: dict[str, dict[str, bytes]] = {}
        self.lock = threading.Lock()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> HubServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __enter__(self) -> HubServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.shutdown()
        self.server_close()

    def commit(self, repo: str, lines: list[dict]) -> dict:
        header = next(line["value"] for line in lines if line["key"] == "header")
        stored = self.files.setdefault(repo, {})
        for line in lines:
            if line["key"] == "file":
                value = line["value"]
                assert value["encoding"] == "base64", value
                stored[value["path"]] = base64.b64decode(value["content"])
        oid = hashlib.sha1(json.dumps(lines, sort_keys=True).encode()).hexdigest()
        return {"commitUrl": f"{self.endpoint}/datasets/{repo}/commit/{oid}", "commitOid": oid, "summary": header}


class Handler(BaseHTTPRequestHandler):
    server: HubServer

    def log_message(self, *args) -> None:
        pass

    def header_dict(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}

    def answer(self, status: int, body: dict | None = None, headers: dict | None = None) -> None:
        data = json.dumps(body if body is not None else {}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.server.requests.append({"method": "GET", "path": self.path, "headers": self.header_dict()})
        self.answer(404, {"error": f"{self.path} is not served here"})

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        server = self.server
        with server.lock:
            server.requests.append({"method": "POST", "path": self.path, "headers": self.header_dict()})
            if server.redirect_to:
                self.answer(307, {}, {"Location": server.redirect_to + self.path})
            elif self.path == "/api/repos/create":
                self.create_repo(json.loads(body))
            elif self.path == "/api/validate-yaml":
                self.answer(200, {"errors": [], "warnings": []})
            elif (match := REPO_PATH.match(self.path)) and match["repo"] not in server.repos:
                self.answer(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
            elif match and match["verb"] == "preupload":
                files = json.loads(body)["files"]
                self.answer(
                    200, {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]}
                )
            elif match:
                lines = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
                self.answer(200, server.commit(match["repo"], lines))
            else:
                self.answer(404, {"error": f"{self.path} is not served here"})

    def create_repo(self, payload: dict) -> None:
        repo = f"{payload['organization']}/{payload['name']}"
        if payload.get("type") != "dataset":
            self.answer(400, {"error": "only dataset repositories are served here"})
        elif repo in self.server.repos:
            self.answer(409, {"error": "You already created this dataset repo", "url": self.repo_url(repo)})
        else:
            self.server.repos[repo] = payload.get("visibility") == "private"
            self.answer(200, {"url": self.repo_url(repo)})

    def repo_url(self, repo: str) -> str:
        return f"{self.server.endpoint}/datasets/{repo}"
