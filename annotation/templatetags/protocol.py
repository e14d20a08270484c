"""``{{ row.question|question_words }}``: a question's name (``head_score``) in words (``the head``)."""

from django import template

from annotation.protocol import QUESTION_WORDS

register = template.Library()


@register.filter
def question_words(name: str) -> str:
    return QUESTION_WORDS.get(name, name)
