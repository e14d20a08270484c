"""The OpenAI backend against a local server speaking POST /v1/embeddings (no real network)."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import ThreadingHTTPServer

import numpy as np
import pytest

from probing.embedding import EmbedConfig, TextSpan, load_backend
from probing.run.engine import MemoryCache, embed_all
from tests.llm_server import JsonHandler


def fake_vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [b / 255 for b in digest[:8]]


class EmbeddingsServer(ThreadingHTTPServer):
    def __init__(self, failures: list[int]) -> None:
        super().__init__(("127.0.0.1", 0), EmbeddingsHandler)
        self.failures = list(failures)  # status codes to answer with before succeeding
        self.requests: list[dict] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class EmbeddingsHandler(JsonHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        if self.server.failures:
            return self.reply(self.server.failures.pop(0), {"error": {"message": "slow down", "type": "rate"}})
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"object": "embedding", "index": i, "embedding": fake_vector(t)} for i, t in enumerate(inputs)]
        data.reverse()  # the client must order by index
        usage = {"prompt_tokens": 1, "total_tokens": 1}
        self.reply(200, {"object": "list", "data": data, "model": body["model"], "usage": usage})


@pytest.fixture
def serve():
    servers = []

    def start(failures=()) -> EmbeddingsServer:
        server = EmbeddingsServer(list(failures))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def backend_for(server: EmbeddingsServer, **options):
    backend = load_backend(
        "openai",
        "text-embedding-3-small",
        {"base_url": server.base_url, "api_key_env": "TEST_EMBEDDINGS_KEY", "max_retries": 3, **options},
    )
    backend.waits = []
    backend.sleep = backend.waits.append
    return backend


def test_it_retries_a_rate_limit_with_growing_waits_then_embeds(serve, monkeypatch):
    monkeypatch.setenv("TEST_EMBEDDINGS_KEY", "sk-test")
    server = serve(failures=[429, 503])
    backend = backend_for(server, backoff_seconds=0.5)
    items = [TextSpan("He is an eager beaver.", (9, 21)), TextSpan("He is a hard worker.")]
    vectors = backend.embed_batch(items, EmbedConfig())
    assert backend.waits == [0.5, 1.0]
    assert len(server.requests) == 3
    request = server.requests[-1]
    assert request["path"] == "/v1/embeddings" and request["auth"] == "Bearer sk-test"
    assert request["body"]["input"] == [item.text for item in items]
    for item, got in zip(items, vectors, strict=True):
        np.testing.assert_allclose(got.sentence, fake_vector(item.text), rtol=1e-6)
        assert got.span is None and got.sentence.dtype == np.float32


def test_it_gives_up_after_max_retries_and_does_not_retry_client_errors(serve, monkeypatch):
    import openai

    monkeypatch.setenv("TEST_EMBEDDINGS_KEY", "sk-test")
    server = serve(failures=[500] * 10)
    with pytest.raises(openai.InternalServerError):
        backend_for(server).embed_batch([TextSpan("a")], EmbedConfig())
    assert len(server.requests) == 4
    server = serve(failures=[400])
    with pytest.raises(openai.BadRequestError):
        backend_for(server).embed_batch([TextSpan("a")], EmbedConfig())
    assert len(server.requests) == 1


def test_it_batches_and_caches_through_the_engine(serve, monkeypatch):
    monkeypatch.setenv("TEST_EMBEDDINGS_KEY", "sk-test")
    server = serve()
    backend = backend_for(server)
    items = [TextSpan(f"sentence number {i}") for i in range(5)]
    cache = MemoryCache()
    _, stats = embed_all(backend, items, EmbedConfig(batch_size=2), cache=cache)
    assert stats.embedded == 5 and [len(r["body"]["input"]) for r in server.requests] == [2, 2, 1]
    _, stats = embed_all(backend, items, EmbedConfig(batch_size=2), cache=cache)
    assert stats.embedded == 0 and len(server.requests) == 3


def test_a_missing_key_says_which_variable_to_set(serve, monkeypatch):
    monkeypatch.delenv("TEST_EMBEDDINGS_KEY", raising=False)
    with pytest.raises(RuntimeError, match="TEST_EMBEDDINGS_KEY"):
        backend_for(serve()).embed_batch([TextSpan("a")], EmbedConfig())


def test_identity_and_cost_estimate_need_no_key_and_no_network(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    backend = load_backend("openai", "text-embedding-3-small", {"base_url": "http://127.0.0.1:9/v1"})
    identity = backend.identity()
    assert identity["name"] == "text-embedding-3-small" and identity["base_url"] == "http://127.0.0.1:9/v1"
    assert backend.supports_span is False
    elsewhere = load_backend("openai", "text-embedding-3-small", {"base_url": "http://127.0.0.1:10/v1"})
    assert elsewhere.identity() != identity
    cost = backend.estimate_cost(["x" * 4000, "y" * 2000, "x" * 4000])  # 1 token per 4 characters, unique texts
    if backend._encoding is None:
        assert cost == {"tokens": 1500, "usd": pytest.approx(1500 * 0.02 / 1e6)}
    assert load_backend("openai", "m", {"price_per_million_tokens": 1}).estimate_cost(["abcd"])["usd"] == 1e-6
