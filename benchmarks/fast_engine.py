"""What probe_throughput.py measures of the onnx engine beside the engine itself: the sentence-transformers ONNX anchor.

Not a script: ``benchmarks/probe_throughput.py`` imports it (a sibling, through sys.path).

``SentenceTransformer(backend="onnx")`` needs optimum-onnx, whose only release (0.1.0) pins
transformers<4.58 and, installed beside transformers 5.23 without its pins, fails to import
(``cannot import name 'get_parameter_dtype' from 'transformers.modeling_utils'``). ``st_onnx_pipeline``
builds what that backend is instead: the pipeline with its transformer replaced by an ONNX Runtime
session over the model's export with ``last_hidden_state`` as its one output (the file
``onnx/model.onnx`` optimum would write), default session options as optimum's ORTModel leaves them;
pooling and normalize stay the pipeline's own, and ``encode`` runs as it always does.
"""

from __future__ import annotations

import warnings
from pathlib import Path

INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def st_onnx_pipeline(source: str, folder: Path):
    """A SentenceTransformer of ``source`` whose transformer runs in ONNX Runtime, as backend="onnx" would."""
    import onnxruntime
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import AutoModel, AutoTokenizer

    path = folder / "onnx" / "model.onnx"
    path.parent.mkdir(parents=True, exist_ok=True)
    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModel.from_pretrained(source, attn_implementation="eager").eval()
    sample = tokenizer(["a short sample", "a longer sample than the first"], padding=True, return_tensors="pt")
    names = [name for name in INPUTS if name in sample]

    class LastHidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *tensors):
            return self.model(**dict(zip(names, tensors, strict=True))).last_hidden_state

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            LastHidden().eval(),
            tuple(sample[name] for name in names),
            str(path),
            dynamo=False,
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes={name: {0: "batch", 1: "tokens"} for name in [*names, "last_hidden_state"]},
            opset_version=17,
        )
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    session_inputs = {node.name for node in session.get_inputs()}

    class OrtFeatureExtraction(torch.nn.Module):
        """Called by the pipeline's Transformer module as optimum's ORTModelForFeatureExtraction is."""

        def __init__(self, config) -> None:
            super().__init__()
            self.config = config

        def forward(self, **features):
            feeds = {name: features[name].cpu().numpy() for name in session_inputs}
            (hidden,) = session.run(["last_hidden_state"], feeds)
            return {"last_hidden_state": torch.from_numpy(hidden)}

    pipeline = SentenceTransformer(source, device="cpu", local_files_only=True)
    pipeline[0].model = OrtFeatureExtraction(pipeline[0].model.config)
    return pipeline
