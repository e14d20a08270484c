"""Number and gender of replacement phrases in English and Portuguese (pure: no Django import).

A minimal pair must keep the grammar of the sentence it comes from: when the compound
occurs in the plural ("eager beavers", "águas doces") the replacement is pluralised too,
and English needs "a" or "an" before it. English leans on ``inflect``; Portuguese uses
the school-grammar rules below, which cover the regular cases and flag the ones that
are guesses (``-ão`` has three plurals) so that a curator looks at them.

Flags are short strings that start with a stable code and a colon (``plural:``) so a
user interface can filter on them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import inflect

Flags = tuple[str, ...]

_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=1)
def _engine() -> inflect.engine:
    # Imported and built on first use: inflect is slow to import (typeguard instruments its engine),
    # and the URL conf, the commands' parsers and the workers import this module without inflecting.
    import inflect

    return inflect.engine()


def is_portuguese(language: str) -> bool:
    """Whether ``language`` is a Portuguese code ("pt", "pt-BR"); anything else in English ("en…")."""
    code = language.casefold()
    if code.startswith("pt"):
        return True
    if code.startswith("en"):
        return False
    raise ValueError(f"unsupported language {language!r}: expected 'en' or 'pt'")


# --- English --------------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def article(word: str) -> str:
    """The indefinite article before ``word`` (or a phrase's first word): "an hour", "a university", "an FBI agent".

    inflect decides by sound, not spelling, which is what a reader hears.
    """
    first = word.split(maxsplit=1)[0] if word.strip() else ""
    if not first:
        return "a"
    return _engine().a(first).split(maxsplit=1)[0].casefold()


@lru_cache(maxsize=8192)
def _english_plural(phrase: str) -> tuple[str, Flags]:
    last = phrase.rsplit(" ", 1)[-1]
    if len(last) > 1 and last.isupper():
        # inflect would write "CEOS"; acronyms take a lower-case "s".
        return phrase + "s", ()
    plural = _engine().plural_noun(phrase)
    if not plural:
        return phrase, (f"plural: no plural found for '{phrase}'",)
    if plural == phrase:
        return phrase, (f"plural: '{phrase}' is the same in the plural; check the verb",)
    return plural, ()


# --- Portuguese -----------------------------------------------------------------------------

# Words after which the rest of a compound is a complement that keeps its number:
# "pés de moleque", "fogões a lenha", "mulas-sem-cabeça".
PT_PREPOSITIONS = frozenset(
    "de do da dos das d' em no na nos nas a à ao aos às com sem para por pelo pela pelos pelas sobre entre contra".split()
)
# Adverbs inside a noun phrase never take the plural.
_PT_INVARIABLE_WORDS = frozenset("mais menos muito bem mal tão quase".split())
# Hyphenated compounds whose first element does not vary: prefixes and verbs ("vice-reis",
# "beija-flores", "guarda-chuvas"); "guarda" can also be a noun ("guardas-noturnos").
_PT_FIXED_FIRST = frozenset(
    "ex vice pré pós pró recém sem além aquém bem mal grão grã auto anti contra super semi mini micro macro "
    "multi ultra tele sub inter hiper beija porta quebra para saca arranha bate corta lava passa tira abre "
    "caça conta pisa salva toca troca limpa puxa mata espanta chupa lança pega vira ganha".split()
)
_PT_UNCERTAIN_FIRST = frozenset({"guarda"})

_PT_IRREGULAR = {
    "mal": "males",
    "cônsul": "cônsules",
    "caráter": "caracteres",
    "júnior": "juniores",
    "sênior": "seniores",
    "gol": "gols",
    "cais": "cais",
    "deus": "deuses",
    "qualquer": "quaisquer",
}
# -ão takes -ões unless listed (the three endings are historical, not predictable).
_PT_AO_AES = frozenset("pão cão alemão capitão charlatão escrivão tabelião capelão sacristão catalão guardião".split())
_PT_AO_AOS = frozenset(
    "mão irmão cidadão cristão cortesão pagão grão chão vão são desvão acórdão órgão órfão sótão bênção".split()
)
_PT_AO_OES = frozenset(
    "limão leão balão avião caminhão coração fogão feijão melão botão cartão portão padrão sabão "
    "razão opinião região lição canção nação ação estação eleição".split()
)

_STRESS_MARKS = "áéíóúâêô"
_UNSTRESS = str.maketrans("áéóâêô", "aeoaeo")  # í and ú stay: they mark a hiatus (países)
_UNACCENT = str.maketrans("áéíóúâêô", "aeiouaeo")


def _accent_before(word: str, end: int) -> bool:
    """Whether ``word[:end]`` carries an acute or circumflex: the stress is not on the last syllable."""
    return any(ch in _STRESS_MARKS for ch in word[:end])


def _pt_word_plural(word: str) -> tuple[str, str | None]:
    """The plural of one Portuguese noun or adjective and, when it is a guess, why."""
    low = word.casefold()
    if low in _PT_IRREGULAR:
        return _with_case(word, _PT_IRREGULAR[low]), None
    if not low[-1:].isalpha():
        return word, None
    if low.endswith("ão"):
        stem = word[:-2]
        if low in _PT_AO_AES:
            return stem + _with_case(word, "ães"), None
        if low in _PT_AO_AOS or _accent_before(low, -2):
            return word + _with_case(word, "s"), None
        if low in _PT_AO_OES or low.endswith(("ção", "são")):
            return stem + _with_case(word, "ões"), None
        return stem + _with_case(word, "ões"), f"'{word}' → '{stem}ões' is a guess (-ões, -ães or -ãos)"
    last = low[-1]
    if last in "aeiouáéíóúâêôã":
        return word + _with_case(word, "s"), None
    if last == "m":
        return word[:-1] + _with_case(word, "ns"), None
    if last in "rz":
        if low.endswith(("aiz", "uiz")):  # hiatus keeps its stress: raízes, juízes
            return word[:-2] + _with_case(word, "ízes"), None
        return word + _with_case(word, "es"), None
    if last == "s":
        return _pt_s_plural(word, low)
    if last == "x":
        return word, None  # tórax, xerox
    if last == "l":
        return _pt_l_plural(word, low)
    if last == "n":
        two = f"'{word}' has two plurals (-ns, -nes)"
        if low.endswith("en"):  # hífen → hifens (hífenes is also accepted): -ens takes no accent
            return word.translate(_UNACCENT) + _with_case(word, "s"), two
        return word + _with_case(word, "s"), two  # elétron → elétrons, próton → prótons keep theirs
    return word + _with_case(word, "s"), f"loanword '{word}' given -s"


def _pt_s_plural(word: str, low: str) -> tuple[str, str | None]:
    if low[-2:-1] and low[-2] in _STRESS_MARKS:
        # Stress on the last syllable: gás → gases, inglês → ingleses, país → países.
        return word[:-2] + word[-2:].translate(_UNSTRESS) + _with_case(word, "es"), None
    if _accent_before(low, -1) or low.endswith(("as", "es", "os", "ais", "eis", "óis", "ois", "uis")):
        return word, None  # lápis, ônibus, atlas, pires, and lemmas that are plural already
    return word + _with_case(word, "es"), f"'{word}' → '{word}es' is a guess"


def _pt_l_plural(word: str, low: str) -> tuple[str, str | None]:
    stem, vowel = word[:-2], low[-2:-1]
    paroxytone = _accent_before(low, -2)
    if vowel == "i":
        # barril → barris; fóssil, útil → fósseis, úteis
        return stem + _with_case(word, "eis" if paroxytone else "is"), None
    if vowel == "a":
        return stem + _with_case(word, "ais"), None
    if vowel == "e":
        return stem + _with_case(word, "eis" if paroxytone else "éis"), None
    if vowel == "o":
        return stem + _with_case(word, "ois" if paroxytone else "óis"), None
    if vowel == "u" and not paroxytone:
        return stem + _with_case(word, "uis"), None
    return word + _with_case(word, "es"), f"'{word}' → '{word}es' is a guess"


def _with_case(word: str, ending: str) -> str:
    return ending.upper() if len(word) > 1 and word.isupper() else ending


def _pt_hyphenated_plural(word: str) -> tuple[str, list[str]]:
    parts = word.split("-")
    notes: list[str] = []
    if any(p.casefold() in PT_PREPOSITIONS for p in parts[1:]):
        varying = [0]  # pé-de-moleque → pés-de-moleque
    elif parts[0].casefold() in _PT_FIXED_FIRST:
        varying = [len(parts) - 1]  # beija-flor → beija-flores
    else:
        varying = list(range(len(parts)))  # alta-costura → altas-costuras
        if parts[0].casefold() in _PT_UNCERTAIN_FIRST:
            varying = [len(parts) - 1]
            notes.append(f"'{word}': '{parts[0]}' may be a noun that takes the plural too")
    for i in varying:
        if parts[i]:
            parts[i], note = _pt_word_plural(parts[i])
            if note:
                notes.append(note)
    return "-".join(parts), notes


@lru_cache(maxsize=8192)
def _portuguese_plural(phrase: str) -> tuple[str, Flags]:
    words = phrase.split(" ")
    notes: list[str] = []
    for i, word in enumerate(words):
        if i and word.casefold() in PT_PREPOSITIONS:
            break  # the complement keeps its number: "pés de moleque"
        if i and word.casefold() in _PT_INVARIABLE_WORDS:
            continue
        if "-" in word.strip("-"):
            words[i], word_notes = _pt_hyphenated_plural(word)
            notes.extend(word_notes)
        else:
            words[i], note = _pt_word_plural(word)
            if note:
                notes.append(note)
    return " ".join(words), tuple(f"plural: {n}" for n in notes)


def pluralise(phrase: str, language: str) -> tuple[str, Flags]:
    """The plural of a replacement given in the singular, with flags for guesses.

    English pluralises the head (inflect finds it: "front men", "men of war"). Portuguese
    pluralises the noun and every agreeing word up to the first preposition ("avisos
    fingidos", "pés de moleque", "altas-costuras").
    """
    phrase = _SPACES.sub(" ", phrase).strip()
    if not phrase:
        raise ValueError("cannot pluralise an empty phrase")
    return _portuguese_plural(phrase) if is_portuguese(language) else _english_plural(phrase)


# --- Portuguese gender ----------------------------------------------------------------------

# Where the endings below are wrong for common words.
_PT_MASCULINE = frozenset(
    "dia mapa planeta cometa clima sofá idioma programa telegrama diagrama drama dogma enigma estigma "
    "fantasma panorama pijama trauma aroma carisma paradigma prisma axioma diploma poeta profeta pirata "
    "papa monarca patriarca coração pão chão grão cão índice vértice cálice apêndice xadrez homem".split()
)
_PT_FEMININE = frozenset(
    "mão tribo foto moto libido gema algema grama cal fé maré chaminé razão opinião união reunião dor flor "
    "cor pele ponte noite gente mente fome lei rede parede sede árvore febre morte sorte tarde carne "
    "chave nave nuvem omelete marionete".split()
)
# Nouns for people of either sex ("o/a dentista").
_PT_COMMON = frozenset("atleta colega idiota patriota astronauta guarda jovem artista".split())
_PT_FEMININE_ENDINGS = ("ção", "são", "xão", "idão", "gião", "ade", "ude", "gem", "ice", "ez", "ise", "ose", "ie", "ã")
_PT_MASCULINE_ENDINGS = ("ema", "ão", "or", "ume", "ime", "ete", "ês", "im", "um", "u", "i", "l")


def _pt_singular_guess(word: str) -> str:
    """A singular good enough to read the gender ending from: "águas" → "água", "ações" → "ação"."""
    for plural, singular in (("ões", "ão"), ("ães", "ão"), ("ãos", "ão"), ("ns", "m"), ("éis", "el"), ("ais", "al")):
        if word.endswith(plural):
            return word[: -len(plural)] + singular
    if word.endswith(("res", "zes")):
        return word[:-2]
    if word.endswith(("is", "us")) and _accent_before(word, -2):
        return word  # lápis, vírus
    if word.endswith("s") and word[-2:-1] not in ("", "s") and word[-2] not in _STRESS_MARKS:
        return word[:-1]
    return word


def singular_word(word: str, language: str) -> str:
    """One word's singular, a guess good enough to count "terremotos" with "terremoto"."""
    if is_portuguese(language):
        return _pt_singular_guess(word)
    return _engine().singular_noun(word) or word


def _pt_noun_gender(word: str) -> str | None:
    word = word.casefold()
    for form in dict.fromkeys((word, _pt_singular_guess(word))):
        if form in _PT_COMMON:
            return None
        if form in _PT_MASCULINE:
            return "m"
        if form in _PT_FEMININE:
            return "f"
        if form.endswith("ista"):
            return None
        if form.endswith(_PT_FEMININE_ENDINGS):
            return "f"
        if form.endswith(_PT_MASCULINE_ENDINGS):
            return "m"
        if form.endswith("a"):
            return "f"
        if form.endswith("o"):
            return "m"
    return None


def guess_gender(noun: str) -> str | None:
    """ "m", "f" or None (unknown) for a Portuguese noun or noun phrase, from its head's ending.

    The head is the first word ("água doce"), or the first element of a hyphenated word.
    Endings: -a, -ade, -ção, -gem, -ice, -ez, -ura … feminine; -o, -or, -ema, -ume, -ão …
    masculine; -e and consonants other than -l, -m, -r, -s unknown, with a short list
    of common exceptions ("o dia", "a mão", "o problema"). When the head is unknown,
    an adjective after it shows the gender ("alarme falso"); hyphenated compounds are
    not read that way because their second element is often a noun ("peixe-espada").
    """
    words = _SPACES.sub(" ", noun).strip().split(" ")
    if not words[0]:
        return None
    head = words[0].split("-")[0] or words[0]
    gender = _pt_noun_gender(head)
    if gender is None and "-" not in words[0] and len(words) > 1 and words[1].casefold() not in PT_PREPOSITIONS:
        modifier = _pt_singular_guess(words[1].casefold())
        if modifier.endswith("o"):
            return "m"
        if modifier.endswith("a") and not modifier.endswith("ista"):
            return "f"
    return gender


def pt_adjective_gender(word: str) -> str | None:
    """The gender an adjective's ending shows ("alcoólica" f, "falso" m); None when invariable ("doce")."""
    low = word.casefold()
    if low.endswith(("o", "os")):
        return "m"
    if low.endswith(("a", "as")) and not low.endswith(("ista", "istas")):
        return "f"
    return None


def pt_adjective_lemma(word: str) -> str:
    """The masculine singular a thesaurus lists ("alcoólicas" → "alcoólico"); other words unchanged."""
    low = word.casefold()
    for ending, lemma in (("as", "o"), ("os", "o"), ("a", "o")):
        if low.endswith(ending) and not low.endswith("ista"):
            return word[: -len(ending)] + lemma
    return word


def pt_inflect_adjective(lemma: str, gender: str) -> str:
    """A masculine adjective in ``gender`` ("etílico", "f" → "etílica"); only the regular -o/-a pair."""
    if gender == "f" and lemma.endswith("o"):
        return lemma[:-1] + "a"
    return lemma


def pt_agreement_flags(head: str, modifier: str) -> tuple[str, ...]:
    """A flag when a replacement's adjective may not agree with its (new) head noun ("líquido alcoólica")."""
    adjective = pt_adjective_gender(modifier)
    if adjective is None:
        return ()
    noun = guess_gender(head)
    if noun is None:
        return (f"agreement: check that '{modifier}' agrees in gender with '{head}'",)
    if noun != adjective:
        wanted = "masculine" if noun == "m" else "feminine"
        return (f"agreement: '{modifier}' may need the {wanted} to agree with '{head}'",)
    return ()
