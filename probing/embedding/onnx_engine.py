"""The fast engine of transformer encoders: the model exported once to ONNX, run by ONNX Runtime.

Pure: no Django. Imported only by a backend whose model's options say ``{"engine": "onnx"}``
(``probing.embedding.base.ENGINES``), so torch's exporter and onnxruntime stay out of every other
process.

The export gives every hidden state (index 0 is the embedding output, as transformers'
``hidden_states``), so layer combinations and sweeps pool the same tensors the eager forward gives;
a session computes only those a batch asks for. An export is written once per model under the
engine cache (``WORKBENCH_ENGINE_CACHE``), never in the model's folder (it may be read-only), in a
folder named by the model's identity (its weights' sha256 or revision) and the versions that shaped
the file, and it is trusted only after the equality check: the exported graph and the eager fp32
forward on a check batch of another shape than the one traced (so a shape frozen by the tracer
shows), every hidden state compared on the real tokens. Within ``TOLERANCE`` the check is kept
beside the file (``check.json``, with its largest difference); beyond it the engine refuses the
model (``EngineMismatch``) and nothing is kept, so the cache never holds vectors from an engine
that was not shown equal for that model.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import tempfile
import warnings
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import numpy as np
import onnxruntime
import torch

# Bump when the exported graph changes (inputs, outputs, opset): older exports are not reused.
EXPORT_FORMAT = 1
OPSET = 17
# The largest difference from the eager fp32 hidden states an export may show (absolute, plus
# relative to the value: a large model's hidden states reach the hundreds), as tests/float32.py allows.
TOLERANCE = 1e-5
# The check batch: lengths differ from the traced sample's, and from one another, so padding is exercised.
CHECK_TEXTS = (
    "The river bank is steep.",
    "An eager beaver met another eager beaver by the old bank of the river, he said.",
    "Police car.",
)
TRACE_TEXTS = ("a short sample", "a sample that is longer than the first one")


class EngineMismatch(RuntimeError):
    """The exported graph does not give the eager fp32 hidden states: the fast engine refuses this model."""


def default_cache_dir() -> Path:
    """Where exports go when the caller names no folder (a registered model's always does: the setting
    ``WORKBENCH_ENGINE_CACHE``, read once, in config/settings.py): the temp folder."""
    return Path(tempfile.gettempdir()) / "workbench-engines"


def check_config(config) -> None:
    """ValueError unless the config is one the engine runs: float32 on the CPU (the eager pass it was checked against)."""
    if config.dtype != "float32" or config.device != "cpu":
        raise ValueError(
            f"the onnx engine runs float32 on the CPU, not {config.dtype} on {config.device}: "
            "use the eager engine for this config"
        )


def max_abs_difference(expected: dict, actual: dict) -> float:
    """The largest absolute difference between two computations' vectors of the same items (``TextSpan -> Vectors``).

    Over the sentence, the span and every swept layer's vectors; infinite where one side has a
    vector the other lacks. What the fast-path equality test and ``benchmarks/probe_throughput.py`` report.
    """
    worst = 0.0
    for item, want in expected.items():
        have = actual[item]
        for name in ("sentence", "span", "layer_sentences", "layer_spans"):
            a, b = getattr(want, name), getattr(have, name)
            if (a is None) != (b is None) or (a is not None and a.shape != b.shape):
                return float("inf")
            if a is not None:
                worst = max(worst, float(np.abs(b.astype(np.float64) - a).max()))
    return worst


def export_key(identity: dict) -> str:
    """The folder name of a model's export: its identity and what wrote and runs the file."""
    versions = {name: _version(name) for name in ("torch", "transformers", "onnx", "onnxruntime")}
    payload = {"identity": identity, "format": EXPORT_FORMAT, "opset": OPSET, "versions": versions}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]


class OnnxEncoder:
    """One exported encoder in an ONNX Runtime session: ``hidden_states(inputs, wanted)`` as the eager forward."""

    def __init__(self, path: Path, check: dict, threads: int | None = None) -> None:
        options = onnxruntime.SessionOptions()
        # As many threads as torch would use (the worker sets it), one operator at a time.
        options.intra_op_num_threads = threads or torch.get_num_threads()
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        # No spinning: between two session runs the worker tokenises and pools in Python, and a thread
        # spinning for the next run takes the core it needs (full public release, 2 cores: the cold run
        # 28.7 s instead of 33.1 s, 52 CPU seconds instead of 63, in one session).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.input_names = [node.name for node in self.session.get_inputs()]
        self.output_names = [node.name for node in self.session.get_outputs()]
        self.check = check  # what the equality check found: {"max_abs", "tolerance", ...}

    def hidden_states(self, inputs: dict[str, torch.Tensor], wanted: Sequence[int]) -> list[torch.Tensor | None]:
        """One (B, T, D) float32 tensor per hidden state in ``wanted`` (negative indices count from the end), else None."""
        count = len(self.output_names)
        indices = sorted({index % count for index in wanted})
        feeds = {name: inputs[name].cpu().numpy() for name in self.input_names}
        outputs = self.session.run([self.output_names[i] for i in indices], feeds)
        states: list[torch.Tensor | None] = [None] * count
        for index, output in zip(indices, outputs, strict=True):
            states[index] = torch.from_numpy(output)
        return states


def open_encoder(model, tokenizer, identity: dict, cache_dir: Path | None = None) -> OnnxEncoder:
    """The fast engine of an eager fp32 HF ``model``: its export from the cache, or exported and checked now.

    ``model`` is the loaded transformers model (float32, CPU); ``tokenizer`` its fast tokenizer.
    EngineMismatch when the export does not give the model's hidden states.
    """
    folder = Path(cache_dir or default_cache_dir()) / export_key(identity)
    path, check_file = folder / "model.onnx", folder / "check.json"
    if path.is_file() and check_file.is_file():
        return OnnxEncoder(path, json.loads(check_file.read_text(encoding="utf-8")))
    folder.mkdir(parents=True, exist_ok=True)
    # Another process may export the same model: each writes its own file and renames it into place.
    scratch = Path(tempfile.mkdtemp(prefix="export-", dir=folder))
    try:
        names = export(model, tokenizer, scratch / "model.onnx")
        if beside := sorted(p.name for p in scratch.iterdir() if p.name != "model.onnx"):
            # Weights past protobuf's 2 GB go to external files: not kept or checked here yet.
            raise EngineMismatch(f"the export wrote external data ({', '.join(beside[:3])}): use the eager engine")
        encoder = OnnxEncoder(scratch / "model.onnx", {})
        check = equality_check(model, tokenizer, encoder, names)
        if check["max_excess"] > 0:
            raise EngineMismatch(
                f"the ONNX export of {identity.get('name')} differs from the eager fp32 forward by up to "
                f"{check['max_abs']:.3g} (tolerance {TOLERANCE:g}): use the eager engine for this model"
            )
        os.replace(scratch / "model.onnx", path)
        (scratch / "check.json").write_text(json.dumps({**check, "identity": identity}, indent=1), encoding="utf-8")
        os.replace(scratch / "check.json", check_file)
    finally:
        for leftover in scratch.glob("*"):
            leftover.unlink()
        scratch.rmdir()
    return OnnxEncoder(path, json.loads(check_file.read_text(encoding="utf-8")))


def model_inputs(model, encoded: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The tokenizer's tensors the model's forward takes (input_ids, attention_mask, token_type_ids)."""
    params = set(inspect.signature(model.forward).parameters)
    return {
        name: encoded[name]
        for name in ("input_ids", "attention_mask", "token_type_ids")
        if name in encoded and name in params
    }


def export(model, tokenizer, path: Path) -> list[str]:
    """Trace ``model`` (eager attention: the tracer cannot follow SDPA's mask code) to ``path``; its input names."""
    sample = model_inputs(model, dict(tokenizer(list(TRACE_TEXTS), padding=True, return_tensors="pt")))
    names = list(sample)
    count = len(_eager_hidden_states(model, sample))
    outputs = [f"hidden_state_{i}" for i in range(count)]
    dynamic = {name: {0: "batch", 1: "tokens"} for name in [*names, *outputs]}
    before = model.config._attn_implementation
    model.set_attn_implementation("eager")
    try:
        # The tracer warns of every Python value it freezes; the equality check, on another shape, is what tells.
        with torch.inference_mode(False), torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                # eval(): the exporter puts the module back in the mode it found, and a new module trains.
                _HiddenStates(model, names).eval(),
                tuple(sample[name] for name in names),
                str(path),
                dynamo=False,  # the TorchScript exporter: no onnxscript, and dynamic axes as named
                input_names=names,
                output_names=outputs,
                dynamic_axes=dynamic,
                opset_version=OPSET,
                do_constant_folding=True,
            )
    finally:
        model.set_attn_implementation(before)
    return names


def equality_check(model, tokenizer, encoder: OnnxEncoder, names: list[str]) -> dict:
    """The export against the eager fp32 forward on ``CHECK_TEXTS``: every hidden state, real tokens only."""
    encoded = dict(tokenizer(list(CHECK_TEXTS), padding=True, return_tensors="pt"))
    inputs = {name: encoded[name] for name in names}
    eager = _eager_hidden_states(model, inputs)
    fast = encoder.hidden_states(inputs, range(len(eager)))
    real = encoded["attention_mask"].bool()
    max_abs, max_excess = 0.0, -np.inf
    for expected, actual in zip(eager, fast, strict=True):
        difference = (actual - expected).abs()[real]
        allowed = TOLERANCE + TOLERANCE * expected.abs()[real]
        max_abs = max(max_abs, float(difference.max()))
        max_excess = max(max_excess, float((difference - allowed).max()))
    return {
        "max_abs": max_abs,
        "max_excess": max_excess,
        "tolerance": TOLERANCE,
        "hidden_states": len(eager),
        "texts": len(CHECK_TEXTS),
    }


def _eager_hidden_states(model, inputs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, ...]:
    with torch.inference_mode():
        return tuple(model(**inputs, output_hidden_states=True).hidden_states)


class _HiddenStates(torch.nn.Module):
    """The model as the exporter sees it: positional inputs in, every hidden state out."""

    def __init__(self, model, names: list[str]) -> None:
        super().__init__()
        self.model = model
        self.names = names

    def forward(self, *tensors: torch.Tensor) -> tuple[torch.Tensor, ...]:
        output = self.model(**dict(zip(self.names, tensors, strict=True)), output_hidden_states=True)
        return tuple(output.hidden_states)


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
