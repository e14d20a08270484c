"""The prompt templates that ask a model the crowd's questions (pure: no Django).

A template gives the same instructions, worked examples and three questions as the human form
(``annotation.protocol.question_pieces``, ``annotation.examples``): the 0-5 literality of the head,
the modifier and the whole compound, and up to three paraphrases. At token level the item is one
sentence with the compound marked; at type level, the compound's sentences (three in the papers).
Each template has a name and a version; ``template_text`` is what a machine annotator stores and
the report shows, and the rendered messages are part of the response cache's key, so a changed
template is asked again and never mixed with the old answers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from annotation.examples import DEFAULT_EXAMPLES, Example, campaign_examples, sentence_parts
from annotation.protocol import MAX_PARAPHRASES

MARK_OPEN, MARK_CLOSE = "[[", "]]"


@dataclass(frozen=True)
class Template:
    """The words of one prompt template; the ``str.format`` fields in them (``{nc}``, ``{sentence}`` …) are
    filled per item."""

    name: str
    version: int
    language: str
    intro: str
    scale: str
    token_item: str
    type_item: str
    questions: tuple[str, str, str]  # head, modifier, compound; {nc}, {head}, {modifier}
    paraphrase_request: str
    answer_format: str
    example_heading: str

    @property
    def text(self) -> str:
        """The template as stored with each machine annotator and shown on the report."""
        return json.dumps(asdict(self), ensure_ascii=False, indent=1)


ANSWER_FORMAT_EN = (
    'Answer with one JSON object and nothing else: {{"head": <0-5>, "modifier": <0-5>, "compound": <0-5>, '
    '"paraphrases": [<up to {n} short texts>]}}.'
)

TEMPLATES: dict[str, Template] = {
    "reddy-en": Template(
        name="reddy-en",
        version=1,
        language="en",
        intro=(
            "You are taking part in a linguistics study on two-word noun compounds. Each item shows a "
            "compound, marked {open}like this{close}, in {where}. Read {them}, then answer three questions."
        ),
        scale="Answer each question on a scale from 0 (not literal at all) to 5 (completely literal).",
        token_item="Sentence: {sentence}",
        type_item="Sentences:\n{sentences}",
        questions=(
            "How literally is {a_nc} {nc} {a_head} {head}?",
            "How literal is the use of “{modifier}” in {nc}?",
            "How literal is the whole compound {nc}?",
        ),
        paraphrase_request="If you can, also give up to {n} short paraphrases: other ways of saying what {nc} means here.",
        answer_format=ANSWER_FORMAT_EN,
        example_heading="Worked examples:",
    ),
    "reddy-pt": Template(
        name="reddy-pt",
        version=1,
        language="pt",
        intro=(
            "Você participa de um estudo de linguística sobre compostos nominais de duas palavras. Cada item "
            "mostra um composto, marcado {open}assim{close}, em {where}. Leia {them} e responda a três perguntas."
        ),
        scale="Responda a cada pergunta numa escala de 0 (nada literal) a 5 (completamente literal).",
        token_item="Frase: {sentence}",
        type_item="Frases:\n{sentences}",
        questions=(
            "Quão literal é o uso de “{head}” em {nc}?",
            "Quão literal é o uso de “{modifier}” em {nc}?",
            "Quão literal é o composto {nc} como um todo?",
        ),
        paraphrase_request="Se puder, dê também até {n} paráfrases curtas: outras maneiras de dizer o que {nc} significa aqui.",
        answer_format=(
            'Responda com um único objeto JSON e nada mais: {{"head": <0-5>, "modifier": <0-5>, "compound": <0-5>, '
            '"paraphrases": [<até {n} textos curtos>]}}.'
        ),
        example_heading="Exemplos resolvidos:",
    ),
}
DEFAULT_TEMPLATE = {"en": "reddy-en", "pt": "reddy-pt"}


@dataclass(frozen=True)
class ItemText:
    """What a model is shown of one item: the compound, its words and its sentence(s)."""

    compound: str
    head: str
    modifier: str
    sentences: tuple[str, ...]


def default_template(language: str) -> Template:
    return TEMPLATES[DEFAULT_TEMPLATE.get(language.split("-")[0], "reddy-en")]


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def marked(sentence: str, compound: str) -> str:
    """The sentence with its first occurrence of the compound between the marks (as the form highlights it)."""
    before, nc, after = sentence_parts(sentence, compound)
    return f"{before}{MARK_OPEN}{nc}{MARK_CLOSE}{after}" if nc else sentence


def words_of(compound: str) -> tuple[str, str]:
    """Head and modifier: the last word and the words before it (as the human form says them)."""
    words = compound.split()
    return (words[-1] if words else compound), (" ".join(words[:-1]) or compound)


def _questions(template: Template, compound: str, head: str, modifier: str) -> list[str]:
    fill = {"nc": compound, "head": head, "modifier": modifier, "a_nc": article(compound), "a_head": article(head)}
    return [f"{number}. {question.format(**fill)}" for number, question in enumerate(template.questions, 1)]


def _item_block(template: Template, item: ItemText, level: str) -> str:
    if level == "type":
        listed = "\n".join(f"- {marked(s, item.compound)}" for s in item.sentences)
        return template.type_item.format(sentences=listed)
    return template.token_item.format(sentence=marked(item.sentences[0], item.compound))


def _example_answer(example: Example) -> str:
    answer = {"head": example.head_score, "modifier": example.modifier_score, "compound": example.compound_score}
    return json.dumps(answer | {"paraphrases": list(example.paraphrases[:MAX_PARAPHRASES])}, ensure_ascii=False)


def system_message(template: Template, level: str, examples: Sequence[Example]) -> str:
    """The instructions, the scale, the answer format and the worked examples: the same for every item."""
    english = template.language == "en"
    where = (
        ("a few sentences" if english else "algumas frases")
        if level == "type"
        else ("a sentence" if english else "uma frase")
    )
    them = ("them" if english else "as") if level == "type" else ("it" if english else "a")
    parts = [
        template.intro.format(open=MARK_OPEN, close=MARK_CLOSE, where=where, them=them),
        template.scale,
        template.answer_format.format(n=MAX_PARAPHRASES),
    ]
    if examples:
        parts.append(template.example_heading)
        for example in examples:
            head, modifier = words_of(example.compound)
            shown = ItemText(example.compound, head, modifier, (example.sentence,))
            parts.append(
                "\n".join(
                    [_item_block(template, shown, "token"), *_questions(template, example.compound, head, modifier)]
                )
                + "\n"
                + _example_answer(example)
            )
    return "\n\n".join(parts)


def user_message(template: Template, item: ItemText, level: str) -> str:
    """One item: its sentence(s) with the compound marked, the three questions and the paraphrase request."""
    return "\n".join(
        [
            _item_block(template, item, level),
            *_questions(template, item.compound, item.head, item.modifier),
            template.paraphrase_request.format(n=MAX_PARAPHRASES, nc=item.compound),
        ]
    )


def messages(
    template: Template, item: ItemText, level: str, own_examples: Sequence[Example] = (), asked: Sequence[str] = ()
) -> list[dict]:
    """The chat messages for one item. Examples about a compound the campaign asks about are left out, as on
    the human form (an example's answers would be that item's)."""
    examples = campaign_examples(own_examples or DEFAULT_EXAMPLES, asked)
    return [
        {"role": "system", "content": system_message(template, level, examples)},
        {"role": "user", "content": user_message(template, item, level)},
    ]


def as_prompt(chat: Sequence[dict]) -> str:
    """The messages as one text for a model without a chat template (a local causal LM), ending where it answers."""
    return "\n\n".join(str(message["content"]) for message in chat) + "\n\nAnswer: "
