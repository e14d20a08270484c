"""Fixtures of the machine-annotator tests: the demo's token campaign rated by its simulated panel, and a tiny
chat LLaMA registered as a local causal LM (in a folder the administrator lists)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from core.paths import real_path


@pytest.fixture(autouse=True)
def models_load_from_the_test_folders(settings, tmp_path_factory):
    settings.WORKBENCH_MODEL_DIRS = [*settings.WORKBENCH_MODEL_DIRS, real_path(tmp_path_factory.getbasetemp())]


@pytest.fixture(scope="session")
def chat_llama_folder(tmp_path_factory):
    from tests.annotator_model import tiny_chat_llama

    return tiny_chat_llama(tmp_path_factory.mktemp("chat-llama") / "chat-llama")


@pytest.fixture
def demo_campaign(db):
    from annotation.models import Campaign

    call_command("create_demo_campaigns", stdout=StringIO())
    call_command("simulate_ratings", "demo-token", stdout=StringIO())
    return Campaign.objects.get(slug="demo-token")


@pytest.fixture
def local_llama(db, chat_llama_folder):
    from probing.models import EmbeddingModel

    return EmbeddingModel.objects.create(name="chat-llama", kind="causal_lm", source=str(chat_llama_folder))


@pytest.fixture
def chat_server(chat_llama_folder, settings, monkeypatch):
    """A local OpenAI-compatible chat server wrapping the tiny chat LLaMA, allowed by the administrator."""
    from tests.llm_server import LanguageModelServer

    monkeypatch.setenv("TEST_CHAT_KEY", "sk-local")
    settings.WORKBENCH_MODEL_API_HOSTS, settings.WORKBENCH_MODEL_API_KEY_ENVS = ["127.0.0.1"], ["TEST_CHAT_KEY"]
    servers = []

    def start(**scripted) -> LanguageModelServer:
        server = LanguageModelServer(chat_llama_folder, **scripted).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def chat_model(db):
    """``chat_model(server, **options)``: the server registered as an openai_chat model."""
    from probing.models import EmbeddingModel

    def register(server, name: str = "served-chat", **options) -> EmbeddingModel:
        options = {"base_url": server.base_url, "api_key_env": "TEST_CHAT_KEY", "model": "tiny-chat", "backoff_seconds": 0.01, **options}  # fmt: skip
        return EmbeddingModel.objects.create(name=name, kind="openai_chat", source="tiny-chat", options=options)

    return register
