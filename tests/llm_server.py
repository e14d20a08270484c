"""A local OpenAI-compatible server wrapping a tiny transformers causal LM: real tokens and log-probabilities.

``POST /v1/completions`` with ``echo`` and ``logprobs`` answers as vLLM does: each prompt's tokens
(the start token included, at offset 0), ``text_offset`` and ``token_logprobs`` (the first null),
computed here by one plain forward pass per prompt and a log-softmax, independently of the
workbench's own scorer, so that tests compare two implementations. ``POST /v1/chat/completions``
answers a greedy completion. Scripted only for what a real model cannot be asked to do on demand:
``failures`` (status codes answered first, e.g. 429), ``malformed`` (an answer without its
log-probabilities) and ``chat_only`` (/v1/completions refused with 404, as a chat-only endpoint).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class LanguageModelServer(ThreadingHTTPServer):
    def __init__(self, folder: Path, failures=(), malformed: bool = False, chat_only: bool = False) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        super().__init__(("127.0.0.1", 0), Handler)
        self.model = AutoModelForCausalLM.from_pretrained(folder).eval()
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.failures = list(failures)
        self.malformed, self.chat_only = malformed, chat_only
        self.requests: list[dict] = []
        self.lock = threading.Lock()  # one forward pass at a time

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def prompt_logprobs(self, prompt: str) -> dict:
        import torch

        encoded = self.tokenizer(prompt, return_offsets_mapping=True)
        ids = encoded["input_ids"]
        with self.lock, torch.no_grad():
            logits = self.model(input_ids=torch.tensor([ids])).logits[0]
        table = torch.log_softmax(logits.double(), dim=-1)
        values = [None] + [float(table[i - 1, ids[i]]) for i in range(1, len(ids))]
        return {
            "tokens": self.tokenizer.convert_ids_to_tokens(ids),
            "text_offset": [start for start, _ in encoded["offset_mapping"]],
            "token_logprobs": values,
            "top_logprobs": None,
        }

    def start(self) -> LanguageModelServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class JsonHandler(BaseHTTPRequestHandler):
    """A handler that answers JSON and logs nothing (the test servers of the model endpoints share it)."""

    def reply(self, status: int, payload: dict) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args) -> None:
        pass


class Handler(JsonHandler):
    server: LanguageModelServer

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        if self.server.failures:
            return self.reply(self.server.failures.pop(0), {"error": {"message": "slow down", "type": "rate"}})
        if self.path.endswith("/completions") and not self.path.endswith("/chat/completions"):
            if self.server.chat_only:
                return self.reply(404, {"error": {"message": "This model only supports chat completions."}})
            return self.completions(body)
        if self.path.endswith("/chat/completions"):
            return self.chat(body)
        return self.reply(404, {"error": {"message": f"no route {self.path}"}})

    def completions(self, body: dict) -> None:
        prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
        choices = []
        for index, prompt in enumerate(prompts):
            choice = {"index": index, "text": prompt if body.get("echo") else "", "finish_reason": "length"}
            choice["logprobs"] = None if self.server.malformed else self.server.prompt_logprobs(prompt)
            choices.append(choice)
        choices.reverse()  # the client must order by index
        self.reply(200, self.envelope("text_completion", body, choices))

    def chat(self, body: dict) -> None:
        import torch

        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        ids = self.server.tokenizer(prompt, return_tensors="pt")["input_ids"]
        with self.server.lock, torch.no_grad():
            out = self.server.model.generate(ids, max_new_tokens=int(body.get("max_tokens") or 8), do_sample=False)
        text = self.server.tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=True)
        message = {"role": "assistant", "content": text}
        choices = [{"index": 0, "message": message, "finish_reason": "length"}]
        self.reply(200, self.envelope("chat.completion", body, choices))

    @staticmethod
    def envelope(kind: str, body: dict, choices: list) -> dict:
        usage = {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1}
        return {"id": "cmpl-local", "object": kind, "created": int(time.time()), "model": body.get("model"), "choices": choices, "usage": usage}  # fmt: skip
