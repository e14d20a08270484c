"""The words around a replaced compound that grammar ties to it (pure: no Django import).

A capital at a sentence's start, the compound's number, English articles and determiners,
Portuguese determiners, contractions and adjectives. ``realise`` asks these when it puts a
replacement where a compound was: what to fix (an English article) and what only to flag
(Portuguese gender without a dictionary).
"""

from __future__ import annotations

from building.rules.grammar.inflection import (
    PT_PREPOSITIONS,
    article,
    guess_gender,
)
from building.rules.grammar.sentence_words import (
    Span,
    at_sentence_start,
    capitalise_first,
    same_case,
    word_after,
)
from datasets.formats.spans import is_plural_form


def match_capital(sentence: str, start: int, surface: str, text: str, flags: list[str]) -> str:
    """The replacement with a capital where the occurrence's capital is the sentence's; never lowercases.

    A capital mid-sentence belongs to the words themselves: an acronym ("an FBI agent")
    is not passed on, a title ("the Front Man") is, with a flag.
    """
    first = next((ch for ch in surface if ch.isalpha()), "")
    words = surface.split()
    if len(words) > 1 and surface.isupper():
        flags.append(f"capital: '{surface}' is in capitals; the replacement is not")
    if first.isupper():
        if at_sentence_start(sentence, start):
            return capitalise_first(text)
        if sum(ch.isalpha() for ch in words[0]) > 1 and words[0].isupper():
            return text  # an acronym
        flags.append(f"capital: '{surface}' has a capital mid-sentence (a name or title?)")
        return capitalise_first(text)
    first_word = text.split(" ", 1)[0]
    if first_word[:1].isupper() and not first_word.isupper():
        flags.append(f"capital: '{text}' keeps its capital where '{surface}' has none")
    return text


def occurs_in_plural(
    sentence: str, surface: str, before: list[Span], compound: str | None, language: str, portuguese: bool
) -> bool:
    if compound and len(compound.split()) == len(surface.split()):
        return is_plural_form(surface, compound, language)
    if before:
        # Without a lemma to compare with, the determiner is the better witness ("a lens").
        word = sentence[before[0][0] : before[0][1]].casefold()
        number = (_PT_DETERMINER_NUMBER if portuguese else _EN_DETERMINER_NUMBER).get(word)
        if number is not None:
            return number
    return _pt_looks_plural(surface) if portuguese else _en_looks_plural(surface)


_EN_SINGULAR_DETERMINERS = frozenset("a an this every each another".split())


_EN_PLURAL_DETERMINERS = frozenset("these those many several both various numerous".split())


_EN_DETERMINER_NUMBER = {w: False for w in _EN_SINGULAR_DETERMINERS} | {w: True for w in _EN_PLURAL_DETERMINERS}


_EN_IRREGULAR_PLURALS = frozenset(
    "men women children people feet teeth mice geese lice oxen data criteria phenomena".split()
)


_EN_SINGULAR_IN_S = frozenset(
    "news lens series species means gas bias atlas canvas chaos corps crossroads headquarters".split()
)


def _en_looks_plural(surface: str) -> bool:
    words = surface.split()
    if not words:
        return False
    last = words[-1].casefold().rsplit("-", 1)[-1]
    if last in _EN_IRREGULAR_PLURALS or (last.endswith("men") and not last.endswith(("omen", "imen", "amen"))):
        return True
    if last in _EN_SINGULAR_IN_S or len(last) < 3:
        return False
    return last.endswith("s") and not last.endswith(("ss", "us", "is", "ous"))


def english_determiner(word: str, surface: str, text: str, plural: bool, flags: list[str]) -> str:
    """The word before the span, with "a"/"an" made to agree with ``text``; number clashes are flagged."""
    low = word.casefold()
    if low in ("a", "an"):
        if plural:
            flags.append(f"article: '{word}' before plural '{text}'; check the number")
            return word
        new = article(text)
        if word[0].isupper():
            new = new.upper() if word.isupper() and (len(word) > 1 or surface.isupper()) else new.capitalize()
        return new
    if plural and low in _EN_SINGULAR_DETERMINERS:
        flags.append(f"agreement: '{word}' before '{text}' suggests a singular; check the number")
    elif not plural and low in _EN_PLURAL_DETERMINERS:
        flags.append(f"agreement: '{word}' before '{text}' suggests a plural; check the number")
    return word


def _pt_pairs(pairs: str) -> dict[str, tuple[str, str]]:
    """word → (gender, the same word in the other gender), singular and plural forms."""
    table: dict[str, tuple[str, str]] = {}
    for pair in pairs.split():
        masculine, feminine = pair.split("/")
        table[masculine] = ("m", feminine)
        table[feminine] = ("f", masculine)
        masculine_plural = masculine[:-1] + "ns" if masculine.endswith("m") else masculine + "s"
        table[masculine_plural] = ("m", feminine + "s")
        table[feminine + "s"] = ("f", masculine_plural)
    return table


# Contractions hold a preposition: what comes before them belongs to another phrase.
_PT_CONTRACTIONS = _pt_pairs(
    "do/da no/na pelo/pela ao/à dum/duma num/numa deste/desta desse/dessa daquele/daquela neste/nesta "
    "nesse/nessa naquele/naquela àquele/àquela"
)


_PT_DETERMINERS = (
    _PT_CONTRACTIONS
    | _pt_pairs(
        "o/a um/uma este/esta esse/essa aquele/aquela seu/sua meu/minha teu/tua nosso/nossa vosso/vossa "
        "outro/outra algum/alguma nenhum/nenhuma muito/muita pouco/pouca tanto/tanta"
    )
    | {"ambos": ("m", "ambas"), "ambas": ("f", "ambos"), "vários": ("m", "várias"), "várias": ("f", "vários")}
)


# Common adjectives whose ending alone would not tell (see _PT_ADJECTIVE_ENDINGS).
_PT_ADJECTIVES = _pt_pairs(
    "todo/toda mesmo/mesma próprio/própria certo/certa bom/boa mau/má novo/nova velho/velha "
    "pequeno/pequena branco/branca preto/preta negro/negra frio/fria alto/alta baixo/baixa belo/bela "
    "bonito/bonita cheio/cheia limpo/limpa sujo/suja seco/seca fresco/fresca pronto/pronta único/única "
    "falso/falsa largo/larga longo/longa curto/curta rico/rica roxo/roxa amarelo/amarela "
    "vermelho/vermelha escuro/escura claro/clara puro/pura raro/rara duro/dura gordo/gorda magro/magra "
    "lindo/linda feio/feia justo/justa santo/santa sério/séria próximo/próxima primeiro/primeira "
    "último/última antigo/antiga"
)


_PT_DETERMINER_NUMBER = {
    w: w.endswith("s") for w in _pt_pairs("o/a um/uma este/esta esse/essa aquele/aquela do/da no/na pelo/pela")
}


# Adjective endings (-ado, -ido, -oso, -ivo, -eiro, -iano; -ico, -ário, -ório with their
# accent): common verbs end in a bare -a ("fica", "usa"), so those are not read as adjectives.
_PT_ADJECTIVE_ENDINGS = ("ad", "id", "os", "iv", "eir", "ian")


_PT_ACCENTED_ADJECTIVE_ENDINGS = ("ic", "ári", "óri")


_PT_NOT_ADJECTIVES = frozenset("nada cada cuida duvida convida vida ida lida cheira agrada brada".split())


def _pt_agreeing(word: str, determiners: bool = True) -> tuple[str, str] | None:
    """(gender, same word in the other gender) for a word that agrees with a noun, else None.

    After the noun only adjectives agree with it: a determiner there ("da fonte") starts
    another phrase.
    """
    if determiners and word in _PT_DETERMINERS:
        return _PT_DETERMINERS[word]
    if word in _PT_ADJECTIVES:
        return _PT_ADJECTIVES[word]
    if word in _PT_NOT_ADJECTIVES or len(word) < 4:
        return None
    stem, plural = (word[:-1], "s") if word.endswith("s") else (word, "")
    vowel = stem[-1:]
    if vowel not in ("o", "a"):
        return None
    body = stem[:-1]
    accented = any(ch in "áéíóúâêô" for ch in body)
    if body.endswith(_PT_ADJECTIVE_ENDINGS) or (accented and body.endswith(_PT_ACCENTED_ADJECTIVE_ENDINGS)):
        return ("m" if vowel == "o" else "f"), body + ("a" if vowel == "o" else "o") + plural
    return None


def _pt_looks_plural(surface: str) -> bool:
    words = surface.split()
    head = words[0].casefold().split("-")[0] if words else ""
    if not head.endswith("s") or len(head) < 2:
        return False
    if len(words) > 1 and words[1].casefold() not in PT_PREPOSITIONS:
        return words[1].casefold().endswith("s")  # the adjective agrees: "águas doces"
    if head.endswith(("ões", "ães", "ãos", "ns", "éis", "óis", "ais", "eis")):
        return True
    if head.endswith("ês") or head in ("gás", "ás", "retrós", "país", "mês", "três"):
        return False
    return not (head.endswith(("is", "us")) and any(ch in "áéíóúâêô" for ch in head[:-1]))  # lápis, vírus


def agreement_flags(
    sentence: str, end: int, before: list[Span], original: str, replacement: str, text: str
) -> list[str]:
    """Words next to the span whose gender may clash with the replacement's head.

    A word whose gender contradicts the original head's (when known) agrees with
    something else, or is the preposition "a", and is left out.
    """
    original_gender = guess_gender(original)
    new_gender = guess_gender(replacement)
    head = text.split(" ", 1)[0]
    flags: list[str] = []

    def check(word: str, where: str) -> None:
        agreeing = _pt_agreeing(word.casefold(), determiners=where == "before")
        if agreeing is None:
            return
        gender, other = agreeing
        if original_gender is not None and gender != original_gender:
            return
        if new_gender is None:
            flags.append(f"agreement: gender of '{head}' unknown; check '{word}' {where} it")
        elif new_gender != gender:
            wanted = "masculine" if new_gender == "m" else "feminine"
            flags.append(f"agreement: '{word}' {where} '{head}' may need the {wanted} ('{same_case(word, other)}')")

    for word_start, word_end in before:
        word = sentence[word_start:word_end]
        if _pt_agreeing(word.casefold()) is None:
            break
        check(word, "before")
        if word.casefold() in _PT_CONTRACTIONS:
            break
    after = word_after(sentence, end)
    if after:
        check(sentence[after[0] : after[1]], "after")
    return flags
