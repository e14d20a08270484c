"""Asking a model for a compound's synonyms in the sense of its sentences: templates, schema, parsing (pure: no Django).

A model is shown the compound marked in its sentences (``prompts.marked``) and asked for synonyms of
the whole compound (NC synonyms, several words allowed) and single-word synonyms of its head and of
its modifier, as one JSON object ``PROPOSAL_SCHEMA`` (sent as the response format where the server
has structured output). Each template has a name and a version; ``template_text`` is stored with the
proposals, and the rendered messages are part of the response cache's key, so a changed template is
asked again. ``parse_proposals`` accepts exactly that object (optionally after a preamble or inside
a code fence, as ``answers.parse`` does) and says why it refuses anything else; it never coerces a
string into a list or a number into a word.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from annotators.answers import AnswerFormat, json_object
from annotators.prompts import marked

SIDES = ("nc", "head", "modifier")
MAX_PER_SIDE = 5
MAX_WORD_LENGTH = 100
PROPOSAL_SCHEMA = {
    "type": "object",
    "properties": {side: {"type": "array", "items": {"type": "string"}, "maxItems": MAX_PER_SIDE} for side in SIDES},
    "required": list(SIDES),
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ProposalTemplate:
    """The words of one prompt; ``{nc}``, ``{head}``, ``{modifier}``, ``{n}`` and ``{sentences}`` are filled per compound."""

    name: str
    version: int
    language: str
    system: str
    user: str

    @property
    def text(self) -> str:
        """The template as stored with the proposals it gave."""
        return json.dumps(asdict(self), ensure_ascii=False, indent=1)


TEMPLATES: dict[str, ProposalTemplate] = {
    "synonyms-en": ProposalTemplate(
        name="synonyms-en",
        version=1,
        language="en",
        system=(
            "You help linguists build minimal pairs of sentences with noun compounds. Given a compound in its "
            "sentences, propose replacements that keep the meaning it has THERE. Answer with one JSON object and "
            'nothing else: {{"nc": [...], "head": [...], "modifier": [...]}}, each a list of at most {n} texts, '
            "best first: synonyms of the whole compound (one or more words), single-word synonyms of the head, "
            "single-word synonyms of the modifier. Leave a list empty rather than guess."
        ),
        user="Compound: {nc} (modifier: {modifier}, head: {head})\nSentences:\n{sentences}",
    ),
    "synonyms-pt": ProposalTemplate(
        name="synonyms-pt",
        version=1,
        language="pt",
        system=(
            "Você ajuda linguistas a construir pares mínimos de frases com compostos nominais. Dado um composto "
            "nas suas frases, proponha substitutos que mantenham o sentido que ele tem ALI. Responda com um único "
            'objeto JSON e nada mais: {{"nc": [...], "head": [...], "modifier": [...]}}, cada um uma lista de no '
            "máximo {n} textos, o melhor primeiro: sinônimos do composto inteiro (uma ou mais palavras), "
            "sinônimos de uma palavra do núcleo, sinônimos de uma palavra do modificador. Deixe uma lista vazia "
            "em vez de adivinhar."
        ),
        user="Composto: {nc} (modificador: {modifier}, núcleo: {head})\nFrases:\n{sentences}",
    ),
}
DEFAULT_TEMPLATE = {"en": "synonyms-en", "pt": "synonyms-pt"}


def default_template(language: str) -> ProposalTemplate:
    return TEMPLATES[DEFAULT_TEMPLATE.get(language.split("-")[0], "synonyms-en")]


def messages(
    template: ProposalTemplate, compound: str, head: str, modifier: str, sentences: Sequence[str]
) -> list[dict]:
    """The chat messages asking for one compound's synonyms, its sentences listed with the compound marked."""
    listed = "\n".join(f"- {marked(s, compound)}" for s in sentences) or "-"
    fill = {"nc": compound, "head": head, "modifier": modifier, "n": MAX_PER_SIDE, "sentences": listed}
    return [
        {"role": "system", "content": template.system.format(**fill)},
        {"role": "user", "content": template.user.format(**fill)},
    ]


@dataclass(frozen=True)
class Proposals:
    """The words proposed for each side ("nc", "head", "modifier"), best first, or why the answer is invalid."""

    words: dict[str, list[str]] = field(default_factory=dict)
    error: str = ""

    @property
    def valid(self) -> bool:
        return not self.error


def parse_proposals(text: str) -> Proposals:
    """The proposals in ``text``, or why it is not one (``Proposals.error``); see the module's docstring."""
    found = json_object(text or "")
    if found is None:
        return Proposals(error="no JSON object in the answer")
    try:
        data = json.loads(found)
    except json.JSONDecodeError as error:
        return Proposals(error=f"not valid JSON: {error.msg} at character {error.pos}")
    if not isinstance(data, dict):
        return Proposals(error="the answer is not a JSON object")
    unknown = sorted(set(data) - set(SIDES))
    if unknown:
        return Proposals(error=f"unknown key {unknown[0]!r}: the keys are {', '.join(SIDES)}")
    words: dict[str, list[str]] = {}
    for side in SIDES:
        if side not in data:
            return Proposals(error=f"no {side} list")
        raw = data[side]
        if not isinstance(raw, list) or not all(isinstance(w, str) for w in raw):
            return Proposals(error=f"{side}: not a list of texts")
        if len(raw) > MAX_PER_SIDE:
            return Proposals(error=f"{side}: {len(raw)} given, at most {MAX_PER_SIDE}")
        kept: list[str] = []
        for word in (" ".join(w.split()) for w in raw):
            if word and len(word) <= MAX_WORD_LENGTH and word.casefold() not in {k.casefold() for k in kept}:
                kept.append(word)
        words[side] = kept
    return Proposals(words=words)


PROPOSALS = AnswerFormat("synonym_proposals", PROPOSAL_SCHEMA, parse_proposals)
