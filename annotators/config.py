"""A machine-annotation job's settings: defaults, overrides and their checks (pure: no Django).

``temperature`` (0: the most likely answer), ``seed`` (sample k asks with seed + k - 1, so samples
differ when the temperature is above 0 and repeat exactly when asked again), ``max_tokens`` of an
answer, ``structured`` (send the answer's JSON schema as ``response_format``, for servers with
structured output: vLLM, llama.cpp, OpenAI), ``logprobs`` (ask for the digits' log-probabilities,
stored as distributions), ``max_attempts`` (an answer that does not parse is asked again with the
reason, at most this many times in all, then recorded invalid), ``concurrency`` (requests in
flight per worker). Rate limits (``requests_per_minute``, ``tokens_per_minute``) and prices are the
model's options: they belong to the endpoint, not to one job.
"""

from __future__ import annotations

DEFAULTS = {
    "temperature": 0.0,
    "seed": 0,
    "max_tokens": 200,
    "structured": True,
    "logprobs": True,
    "max_attempts": 3,
    "concurrency": 4,
}
LIMITS = {"temperature": (0.0, 2.0), "seed": (0, 2**31 - 1), "max_tokens": (16, 4096), "max_attempts": (1, 10), "concurrency": (1, 64)}  # fmt: skip


def resolve(*layers: dict | None) -> dict:
    """The defaults overridden by each layer in turn (a model's config, then a job's); ValueError naming a bad key."""
    settings = dict(DEFAULTS)
    for layer in layers:
        if layer is None:
            continue
        if not isinstance(layer, dict):
            raise ValueError('settings are a JSON object such as {"temperature": 0.7, "seed": 1}')
        for key, value in layer.items():
            if key not in DEFAULTS:
                raise ValueError(f"unknown setting {key!r}: the settings are {', '.join(DEFAULTS)}")
            settings[key] = _checked(key, value)
    return settings


def _checked(key: str, value):
    kind = type(DEFAULTS[key])
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{key}: {value!r} is not true or false")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and float(value) != int(value)):
        raise ValueError(f"{key}: {value!r} is not a {'whole ' if kind is int else ''}number")
    low, high = LIMITS[key]
    if not low <= value <= high:
        raise ValueError(f"{key}: {value} is outside {low}-{high}")
    return kind(value)


def sample_seed(settings: dict, sample: int) -> int:
    """The seed sample ``sample`` (from 1) asks with."""
    return int(settings["seed"]) + sample - 1
