"""ELMo (Peters et al. 2018) in PyTorch, read from the published ``options.json`` and ``weights.hdf5``.

Pure: no Django. The network is the original bidirectional language model (bilm-tf) at inference:

- every token is its UTF-8 bytes between begin-of-word and end-of-word markers, padded with a
  padding character to ``max_characters_per_token`` (bytes beyond it are cut); ids are shifted
  by one so that 0 means "no token" (the rows after a sentence's end);
- a character CNN: character embedding, one convolution per filter width with a max over time
  and the options' activation, highway layers, and a projection to the LSTM width;
- the sentence between begin- and end-of-sentence tokens runs through a forward and a backward
  stack of TensorFlow ``LSTMCell`` layers (projection, cell clipping, projection clipping, the
  forget-gate bias of 1.0 that TensorFlow adds, residual connections above the first layer when
  ``use_skip_connections``); the backward stack reads each sentence from its own end.

Layer 0 is the token embedding concatenated with itself (to the width of the LSTM layers, as
the original does); layer k is the k-th LSTM layer, forward and backward halves concatenated.

Unlike bilm-tf and allennlp, which carry the LSTM state from one batch to the next, every
sentence starts from a zero state, so a sentence's vectors depend on the sentence alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

# bilm-tf's special characters (before the shift by one that makes 0 the padding id).
BOS_CHAR, EOS_CHAR, BOW_CHAR, EOW_CHAR, PAD_CHAR = 256, 257, 258, 259, 260
FORGET_BIAS = 1.0  # TensorFlow's LSTMCell adds it to the forget gate; the weight file leaves it out
ACTIVATIONS = {"relu": torch.relu, "tanh": torch.tanh}
# Per LSTM layer, (h, c) of both directions: (2, B, projection_dim) and (2, B, cell_dim).
State = list[tuple[torch.Tensor, torch.Tensor]]


class ElmoFileError(ValueError):
    """An options or weights file that does not describe an ELMo model this module can run."""


@dataclass(frozen=True)
class ElmoOptions:
    """The architecture an ``options.json`` describes (the keys bilm-tf reads at inference)."""

    filters: tuple[tuple[int, int], ...]  # (width, number of filters)
    char_dim: int
    n_highway: int
    n_characters: int
    max_characters_per_token: int
    activation: str
    n_layers: int
    cell_dim: int
    projection_dim: int
    cell_clip: float | None
    proj_clip: float | None
    use_skip_connections: bool

    @classmethod
    def from_json(cls, data: dict) -> ElmoOptions:
        try:
            cnn, lstm = data["char_cnn"], data["lstm"]
            options = cls(
                filters=tuple((int(width), int(number)) for width, number in cnn["filters"]),
                char_dim=int(cnn["embedding"]["dim"]),
                n_highway=int(cnn.get("n_highway", 0)),
                n_characters=int(cnn["n_characters"]),
                max_characters_per_token=int(cnn["max_characters_per_token"]),
                activation=str(cnn.get("activation", "relu")),
                n_layers=int(lstm["n_layers"]),
                cell_dim=int(lstm["dim"]),
                projection_dim=int(lstm["projection_dim"]),
                cell_clip=_clip(lstm.get("cell_clip")),
                proj_clip=_clip(lstm.get("proj_clip")),
                use_skip_connections=bool(lstm.get("use_skip_connections", False)),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ElmoFileError(f"not an ELMo options file (char_cnn and lstm sections): {error!r}") from None
        if options.activation not in ACTIVATIONS:
            raise ElmoFileError(f"char_cnn activation {options.activation!r}: one of {', '.join(ACTIVATIONS)}")
        if options.max_characters_per_token < 3 or not options.filters or options.n_layers < 1:
            raise ElmoFileError("max_characters_per_token >= 3, at least one filter and one LSTM layer")
        if max(width for width, _ in options.filters) > options.max_characters_per_token:
            raise ElmoFileError("a filter is wider than max_characters_per_token")
        return options

    @property
    def n_filters(self) -> int:
        return sum(number for _, number in self.filters)

    @property
    def dim(self) -> int:
        """The width of every output layer: both directions' projections."""
        return 2 * self.projection_dim

    def as_dict(self) -> dict:
        """The architecture as canonical JSON values (part of a model's identity)."""
        return {
            "char_cnn": {
                "filters": [list(f) for f in self.filters],
                "embedding_dim": self.char_dim,
                "n_highway": self.n_highway,
                "n_characters": self.n_characters,
                "max_characters_per_token": self.max_characters_per_token,
                "activation": self.activation,
            },
            "lstm": {
                "n_layers": self.n_layers,
                "dim": self.cell_dim,
                "projection_dim": self.projection_dim,
                "cell_clip": self.cell_clip,
                "proj_clip": self.proj_clip,
                "use_skip_connections": self.use_skip_connections,
            },
        }


def _clip(value) -> float | None:
    return float(value) if value not in (None, 0, False) else None


# --- characters -------------------------------------------------------------------------------


def word_char_ids(word: str, max_chars: int) -> list[int]:
    """The shifted character ids of one token: begin-of-word, its UTF-8 bytes, end-of-word, padding."""
    data = word.encode("utf-8", "ignore")[: max_chars - 2]
    ids = [BOW_CHAR, *data, EOW_CHAR, *[PAD_CHAR] * (max_chars - 2 - len(data))]
    return [i + 1 for i in ids]


def _boundary_ids(char: int, max_chars: int) -> list[int]:
    ids = [BOW_CHAR, char, EOW_CHAR, *[PAD_CHAR] * (max_chars - 3)]
    return [i + 1 for i in ids]


def batch_char_ids(sentences: list[list[str]], max_chars: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, T, max_chars) ids of the sentences between boundary tokens, right-padded with 0; their lengths."""
    lengths = [len(words) + 2 for words in sentences]
    ids = torch.zeros((len(sentences), max(lengths, default=2), max_chars), dtype=torch.long)
    bos, eos = _boundary_ids(BOS_CHAR, max_chars), _boundary_ids(EOS_CHAR, max_chars)
    for row, words in enumerate(sentences):
        rows = [bos, *(word_char_ids(word, max_chars) for word in words), eos]
        ids[row, : len(rows)] = torch.tensor(rows, dtype=torch.long)
    return ids, torch.tensor(lengths, dtype=torch.long)


# --- the network ------------------------------------------------------------------------------


class CharCNN(nn.Module):
    """Token vectors from character ids: embedding, convolutions with max over time, highways, projection."""

    def __init__(self, options: ElmoOptions, char_rows: int) -> None:
        super().__init__()
        self.activation = ACTIVATIONS[options.activation]
        self.char_embed = nn.Embedding(char_rows, options.char_dim, padding_idx=0)
        self.convs = nn.ModuleList(nn.Conv1d(options.char_dim, number, width) for width, number in options.filters)
        n = options.n_filters
        self.carry = nn.ModuleList(nn.Linear(n, n) for _ in range(options.n_highway))
        self.transform = nn.ModuleList(nn.Linear(n, n) for _ in range(options.n_highway))
        self.projection = nn.Linear(n, options.projection_dim) if n != options.projection_dim else None

    def forward(self, char_ids: torch.Tensor) -> torch.Tensor:
        """(..., max_chars) ids to (..., projection_dim) vectors."""
        shape = char_ids.shape[:-1]
        chars = self.char_embed(char_ids.reshape(-1, char_ids.shape[-1])).transpose(1, 2)  # (N, dim, chars)
        x = torch.cat([self.activation(conv(chars).amax(dim=-1)) for conv in self.convs], dim=-1)
        for carry, transform in zip(self.carry, self.transform, strict=True):
            # bilm-tf's gate (named "carry" in the file) weighs the transformed input.
            gate = torch.sigmoid(carry(x))
            x = gate * torch.relu(transform(x)) + (1.0 - gate) * x
        if self.projection is not None:
            x = self.projection(x)
        return x.reshape(*shape, -1)


class BiLstmStack(nn.Module):
    """Both directions' LSTM layers, run side by side: index 0 of each weight is forward, 1 backward."""

    def __init__(self, options: ElmoOptions) -> None:
        super().__init__()
        self.options = options
        cell, proj = options.cell_dim, options.projection_dim
        self.w_input = nn.ParameterList(nn.Parameter(torch.empty(2, proj, 4 * cell)) for _ in range(options.n_layers))
        self.w_hidden = nn.ParameterList(nn.Parameter(torch.empty(2, proj, 4 * cell)) for _ in range(options.n_layers))
        self.bias = nn.ParameterList(nn.Parameter(torch.empty(2, 1, 4 * cell)) for _ in range(options.n_layers))
        self.w_proj = nn.ParameterList(nn.Parameter(torch.empty(2, cell, proj)) for _ in range(options.n_layers))

    def forward(
        self, x: torch.Tensor, lengths: torch.Tensor, state: State | None = None, keep_state: bool = False
    ) -> tuple[list[torch.Tensor], State | None]:
        """x (2, B, T, proj): the token vectors, the backward half already reversed per sentence.

        Returns each layer's output (2, B, T, proj) in the same frame and, with ``keep_state``,
        each layer's (h, c) after each sentence's last position. Positions after a sentence's end
        never reach its own positions: both halves read their sentence from position 0 on.
        ``state`` (a previous call's final state) replaces the zero initial state: bilm-tf's
        stateful protocol.
        """
        clip_c, clip_p = self.options.cell_clip, self.options.proj_clip
        cell = self.options.cell_dim
        directions, batch, steps, _ = x.shape
        last = (lengths.to(x.device) - 1).view(1, batch, 1)
        outputs, finals = [], []
        for layer in range(self.options.n_layers):
            # Time first, so that each step reads one contiguous block.
            gates_x = (torch.matmul(x, self.w_input[layer].unsqueeze(1)) + self.bias[layer].unsqueeze(1)).permute(
                2, 0, 1, 3
            )
            gates_x = gates_x.contiguous()
            w_hidden, w_proj = self.w_hidden[layer], self.w_proj[layer]
            if state is None:
                h = x.new_zeros(directions, batch, self.options.projection_dim)
                c = x.new_zeros(directions, batch, cell)
            else:
                h, c = state[layer]
            final_h, final_c = h, c
            steps_out = []
            for t in range(steps):
                gates = torch.baddbmm(gates_x[t], h, w_hidden)  # columns: i, f, o, then j (see load_elmo)
                i, f, o = torch.sigmoid(gates[..., : 3 * cell]).chunk(3, dim=-1)
                c = f * c + i * torch.tanh(gates[..., 3 * cell :])
                if clip_c is not None:
                    c = c.clamp(-clip_c, clip_c)
                h = torch.bmm(o * torch.tanh(c), w_proj)
                if clip_p is not None:
                    h = h.clamp(-clip_p, clip_p)
                steps_out.append(h)
                if keep_state:
                    ends = last == t
                    final_h, final_c = torch.where(ends, h, final_h), torch.where(ends, c, final_c)
            out = torch.stack(steps_out, dim=2)
            if self.options.use_skip_connections and layer > 0:
                out = out + x
            outputs.append(out)
            finals.append((final_h, final_c))
            x = out
        return outputs, finals if keep_state else None


def reverse_each(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """x (B, T, D) with each row's first lengths[b] positions reversed (the rest left in place)."""
    steps = torch.arange(x.shape[1], device=x.device).unsqueeze(0)
    lengths = lengths.to(x.device).unsqueeze(1)
    index = torch.where(steps < lengths, lengths - 1 - steps, steps)
    return x.gather(1, index.unsqueeze(-1).expand_as(x))


class Elmo(nn.Module):
    """The bidirectional language model; ``forward`` gives every layer of every position."""

    def __init__(self, options: ElmoOptions, char_rows: int) -> None:
        super().__init__()
        self.options = options
        self.char_cnn = CharCNN(options, char_rows)
        self.lstm = BiLstmStack(options)

    @property
    def n_layers(self) -> int:
        return self.options.n_layers + 1

    def forward(self, char_ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """(n_layers, B, T, dim) for (B, T, max_chars) ids of boundary-wrapped sentences of ``lengths``."""
        return self._run(char_ids, lengths, None, keep_state=False)[0]

    def run(
        self, char_ids: torch.Tensor, lengths: torch.Tensor, state: State | None = None
    ) -> tuple[torch.Tensor, State]:
        """Every layer, and the LSTM state after each sentence (to carry over, as bilm-tf does)."""
        return self._run(char_ids, lengths, state, keep_state=True)

    def _run(
        self, char_ids: torch.Tensor, lengths: torch.Tensor, state: State | None, keep_state: bool
    ) -> tuple[torch.Tensor, State | None]:
        # The token layer depends on the token alone: each distinct token of the batch goes through
        # the CNN once (the variants of a sentence share most of their words).
        distinct, where = torch.unique(char_ids.reshape(-1, char_ids.shape[-1]), dim=0, return_inverse=True)
        tokens = self.char_cnn(distinct)[where].reshape(*char_ids.shape[:-1], -1)
        layers, final = self.lstm(torch.stack([tokens, reverse_each(tokens, lengths)]), lengths, state, keep_state)
        out = [torch.cat([tokens, tokens], dim=-1)]
        out += [torch.cat([layer[0], reverse_each(layer[1], lengths)], dim=-1) for layer in layers]
        return torch.stack(out), final


# --- the weight file --------------------------------------------------------------------------


def load_elmo(options: ElmoOptions, weights: Path) -> Elmo:
    """The model with the weights of a bilm-tf HDF5 file; ElmoFileError when they do not fit the options."""
    import h5py

    with h5py.File(weights, "r") as handle:
        refuse_links(handle, weights)
        read = _Reader(handle, weights)
        char_embed = read("char_embed", (None, options.char_dim))
        if char_embed.shape[0] < PAD_CHAR + 1:
            raise ElmoFileError(
                f"{weights.name}: char_embed has {char_embed.shape[0]} rows; byte-level ELMo needs {PAD_CHAR + 1}"
            )
        model = Elmo(options, char_embed.shape[0] + 1)
        state = {"char_cnn.char_embed.weight": torch.cat([torch.zeros(1, options.char_dim), char_embed])}
        for k, (width, number) in enumerate(options.filters):
            kernel = read(f"CNN/W_cnn_{k}", (1, width, options.char_dim, number))
            state[f"char_cnn.convs.{k}.weight"] = kernel[0].permute(2, 1, 0)
            state[f"char_cnn.convs.{k}.bias"] = read(f"CNN/b_cnn_{k}", (number,))
        n = options.n_filters
        for k in range(options.n_highway):
            for name in ("carry", "transform"):
                state[f"char_cnn.{name}.{k}.weight"] = read(f"CNN_high_{k}/W_{name}", (n, n)).T
                state[f"char_cnn.{name}.{k}.bias"] = read(f"CNN_high_{k}/b_{name}", (n,))
        if model.char_cnn.projection is not None:
            state["char_cnn.projection.weight"] = read("CNN_proj/W_proj", (n, options.projection_dim)).T
            state["char_cnn.projection.bias"] = read("CNN_proj/b_proj", (options.projection_dim,))
        cell, proj = options.cell_dim, options.projection_dim
        for layer in range(options.n_layers):
            kernels, biases, projections = [], [], []
            for direction in (0, 1):
                prefix = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
                kernels.append(read(f"{prefix}/W_0", (2 * proj, 4 * cell)))
                bias = read(f"{prefix}/B", (4 * cell,)).clone()
                bias[2 * cell : 3 * cell] += FORGET_BIAS
                biases.append(bias)
                projections.append(read(f"{prefix}/W_P_0", (cell, proj)))
            kernel = sigmoid_gates_first(torch.stack(kernels), cell)  # rows: the input, then the previous output
            state[f"lstm.w_input.{layer}"] = kernel[:, :proj].contiguous()
            state[f"lstm.w_hidden.{layer}"] = kernel[:, proj:].contiguous()
            state[f"lstm.bias.{layer}"] = sigmoid_gates_first(torch.stack(biases), cell).unsqueeze(1)
            state[f"lstm.w_proj.{layer}"] = torch.stack(projections)
    model.load_state_dict(state, strict=True)
    return model.eval()


def sigmoid_gates_first(matrix: torch.Tensor, cell: int) -> torch.Tensor:
    """TensorFlow's gate columns (input i, candidate j, forget f, output o) as i, f, o, j: one sigmoid for three."""
    i, j, f, o = matrix.split(cell, dim=-1)
    return torch.cat([i, f, o, j], dim=-1)


class _Reader:
    """Reads datasets as float32 tensors, checking each one's shape (None: any size)."""

    def __init__(self, handle, path: Path) -> None:
        self.handle, self.path = handle, path

    def __call__(self, name: str, shape: tuple[int | None, ...]) -> torch.Tensor:
        dataset = self.handle.get(name)
        if dataset is None or not hasattr(dataset, "shape"):
            raise ElmoFileError(f"{self.path.name} has no dataset {name}: not an ELMo weight file for these options")
        if len(dataset.shape) != len(shape) or any(
            s is not None and s != d for s, d in zip(shape, dataset.shape, strict=True)
        ):
            expected = tuple("any" if s is None else s for s in shape)
            raise ElmoFileError(
                f"{self.path.name}: {name} has shape {dataset.shape}, the options file implies {expected}"
            )
        return torch.from_numpy(dataset[...].astype("float32"))


def refuse_links(handle, path: Path) -> None:
    """Refuse HDF5 links and datasets that read other files: only this file's own bytes are loaded."""
    import h5py

    links: list[tuple[str, object]] = []
    handle.visititems_links(lambda name, link: links.append((name, link)))  # an error raised inside breaks h5py
    for name, link in links:
        if isinstance(link, h5py.ExternalLink):
            raise ElmoFileError(f"{path.name}: {name} links to another file ({link.filename})")
        item = handle.get(name) if isinstance(link, h5py.HardLink) else None
        if isinstance(item, h5py.Dataset) and (item.is_virtual or item.external):
            raise ElmoFileError(f"{path.name}: dataset {name} reads its data from other files")
