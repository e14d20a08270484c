from annotation.protocol import QUESTION_WORDS, QUESTIONS, gold_correct, practice_needed, validate_answers
from annotation.templatetags.protocol import question_words


def test_three_answers_and_paraphrases_are_accepted():
    answers, errors = validate_answers(
        {
            "head_score": "4",
            "modifier_score": 0,
            "compound_score": " 2 ",
            "paraphrases": ["keen  person", "", "Keen person"],
        }
    )
    assert errors == {}
    assert (answers.head_score, answers.modifier_score, answers.compound_score) == (4, 0, 2)
    assert answers.paraphrases == ["keen person"]  # spacing folded, case-insensitive repeats dropped


def test_form_fields_paraphrase_1_to_3_are_read():
    answers, _ = validate_answers(
        {"head_score": "1", "modifier_score": "1", "compound_score": "1", "paraphrase_1": "a", "paraphrase_3": "b"}
    )
    assert answers.paraphrases == ["a", "b"]


def test_missing_and_out_of_scale_answers_are_explained_per_field():
    answers, errors = validate_answers({"head_score": "6", "modifier_score": "x", "paraphrases": ["a", "b", "c", "d"]})
    assert answers is None
    assert errors == {
        "head_score": "6 is outside the scale: choose 0 to 5.",
        "modifier_score": "'x' is not a whole number from 0 to 5.",
        "compound_score": "Please choose a value from 0 to 5.",
        "paraphrases": "Give at most 3 paraphrases.",
    }


def test_a_too_long_paraphrase_is_refused():
    _, errors = validate_answers(
        {"head_score": 1, "modifier_score": 1, "compound_score": 1, "paraphrases": ["x" * 301]}
    )
    assert "at most 300 characters" in errors["paraphrases"]


def test_gold_answers_count_within_the_tolerance():
    assert gold_correct(3, 4, 1) and gold_correct(5, 4, 1) and not gold_correct(2, 4, 1)
    assert gold_correct(2, 4, 2) and not gold_correct(3, 4, 0) and gold_correct(0, None, 0)


def test_the_practice_pass_rule_rounds_the_pass_mark_up_without_floating_point_surprises():
    assert practice_needed(5, 0.8) == 4  # 0.8 x 5 is 4.000000000000001 in floating point
    assert practice_needed(2, 0.5) == 1
    assert practice_needed(3, 0.5) == 2
    assert practice_needed(2, 1.0) == 2
    assert practice_needed(0, 0.8) == 0


def test_every_question_has_words_for_the_tables_that_show_it():
    assert set(QUESTION_WORDS) == set(QUESTIONS)
    assert [question_words(name) for name in QUESTIONS] == ["the head", "the modifier", "the whole compound"]
    assert question_words("something_else") == "something_else"
