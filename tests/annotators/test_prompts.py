"""The templates ask what the human form asks: its three questions, its worked examples, the item as it is shown."""

import json

from annotation.examples import DEFAULT_EXAMPLES
from annotation.protocol import question_pieces
from annotators.asking import request_key
from annotators.config import resolve
from annotators.prompts import TEMPLATES, ItemText, as_prompt, default_template, messages

ITEM = ItemText(
    "grey matter",
    "matter",
    "grey",
    ("Use your grey matter for once.", "Grey matter is tissue.", "It needs grey matter."),
)


def test_the_english_template_asks_the_human_forms_three_questions_with_its_examples():
    chat = messages(TEMPLATES["reddy-en"], ITEM, "token")
    system, user = chat[0]["content"], chat[1]["content"]
    for piece in question_pieces("grey matter", "en", "matter", "grey"):
        assert f"{piece['before']}{piece['nc']}{piece['after']}" in user
    assert "0 (not literal at all) to 5 (completely literal)" in system
    for example in DEFAULT_EXAMPLES:
        assert example.sentence.replace(example.compound, f"[[{example.compound}]]") in system
        assert f'"compound": {example.compound_score}' in system
    assert "Sentence: Use your [[grey matter]] for once." in user and "Grey matter is tissue" not in user
    assert "up to 3 short paraphrases" in user


def test_type_level_shows_every_sentence_and_an_example_about_an_asked_compound_is_left_out():
    chat = messages(TEMPLATES["reddy-en"], ITEM, "type", asked=["eager beaver", "grey matter"])
    assert (
        "Sentences:\n- Use your [[grey matter]] for once.\n- [[Grey matter]] is tissue.\n- It needs [[grey matter]]."
        in chat[1]["content"]
    )
    assert "eager beaver" not in chat[0]["content"] and "coffee cup" in chat[0]["content"]
    assert "a few sentences" in chat[0]["content"]


def test_portuguese_campaigns_are_asked_in_portuguese():
    template = default_template("pt-BR")
    assert template.name == "reddy-pt"
    chat = messages(template, ItemText("olho gordo", "olho", "gordo", ("Ele tem olho gordo.",)), "token")
    assert "Frase: Ele tem [[olho gordo]]." in chat[1]["content"] and "Quão literal" in chat[1]["content"]
    assert "numa escala de 0 (nada literal) a 5" in chat[0]["content"]


def test_the_template_text_is_stored_whole_and_a_changed_template_is_another_request():
    template = TEMPLATES["reddy-en"]
    assert json.loads(template.text)["version"] == template.version and json.loads(template.text)["questions"]
    settings = resolve()
    identity = {"kind": "openai_chat", "name": "m"}
    one = request_key(identity, messages(template, ITEM, "token"), settings, 0)
    assert one == request_key(identity, messages(template, ITEM, "token"), settings, 0)
    assert one != request_key(identity, messages(TEMPLATES["reddy-pt"], ITEM, "token"), settings, 0)
    assert one != request_key(identity, messages(template, ITEM, "token"), settings, 1)
    assert one != request_key(identity, messages(template, ITEM, "token"), resolve({"temperature": 0.7}), 0)
    assert as_prompt(messages(template, ITEM, "token")).endswith("Answer: ")
