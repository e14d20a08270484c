"""Gender and number of Portuguese words, read from the Hunspell pt_PT dictionary (pure: no Django import).

Debian's ``hunspell-pt-pt`` (Projecto Natura, Universidade do Minho) is generated from a
morphological lexicon: each entry carries its category, gender and number
(``abalo/p [CAT=nc,G=m,N=s]``) and each affix rule says what it changes (``+G=f,N=p``).
That is what agreement needs: a noun's gender, and an adjective's, determiner's or
contraction's form in another gender and number. Only the inflectional rules (those that
change nothing but gender and number) are expanded, and only for the nominal categories,
so the table holds some 90,000 forms.

The dictionary spells European Portuguese; a Brazilian spelling it lacks ("econômico",
"acadêmica") is looked up through the European one ("económico") and given back in the
Brazilian spelling.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DEFAULT_PATHS = (Path("/usr/share/hunspell/pt_PT.dic"),)
# Portuguese function words (articles, prepositions and contractions, conjunctions, pronouns,
# determiners): closed-class words a dictionary of nouns and adjectives is not asked about, so they
# are never "not in the dictionary". A two-word thesaurus entry with one is a phrase, not a compound.
FUNCTION_WORDS = frozenset(
    "a à às ao aos o os as um uma uns umas de do da dos das em no na nos nas num numa por pelo pela pelos pelas "
    "para pra com sem sob sobre se que não e ou nem mais menos muito pouco tão tal qual como quando onde "
    "este esta isto esse essa isso aquele aquela aquilo meu minha seu sua nosso nossa lhe lhes me te vos lo la los las".split()
)
# Coordinating conjunctions: what follows is another conjunct, not a word agreeing with the head.
CONJUNCTIONS = frozenset({"e", "ou", "nem"})

NOUN = "nc"  # a common noun
ADJECTIVE = "adj"
NOUN_OR_ADJECTIVE = "a_nc"  # "clínico", "certo"
# Words that agree with a noun: articles, contractions of a preposition with one (do, na, ao,
# pelo, num, deste…), demonstratives, possessives, indefinites and quantifiers, numerals.
ARTICLE, CONTRACTION, DEMONSTRATIVE, POSSESSIVE, INDEFINITE, CARDINAL, ORDINAL = (
    "art",
    "cp",
    "pdem",
    "ppos",
    "pind",
    "card",
    "nord",
)
NOMINAL = frozenset({NOUN, ADJECTIVE, NOUN_OR_ADJECTIVE, ARTICLE, CONTRACTION, DEMONSTRATIVE, POSSESSIVE,
                     INDEFINITE, CARDINAL, ORDINAL})  # fmt: skip
DETERMINERS = frozenset({ARTICLE, CONTRACTION, DEMONSTRATIVE, POSSESSIVE, INDEFINITE, CARDINAL})
ADJECTIVES = frozenset({ADJECTIVE, NOUN_OR_ADJECTIVE, ORDINAL})
NOUNS = frozenset({NOUN, NOUN_OR_ADJECTIVE})
# An adjective's forms may be listed under either category ("nu" a_nc, "nua" adj).
_PARADIGM = {ADJECTIVE: ADJECTIVE, NOUN_OR_ADJECTIVE: ADJECTIVE, ORDINAL: ADJECTIVE}
BOTH = "_"  # the dictionary's "either gender" ("grande") or "either number" ("cada")

# Feminines that are words of their own in the dictionary: one paradigm under the masculine.
_SUPPLETIVE = {"minha": "meu", "tua": "teu", "sua": "seu", "duas": "dois", "ambas": "ambos"}
_INFLECTIONAL_TAGS = re.compile(r"^(?:(?:G=[mf_]|N=[sp])(?:,|$))+$")
# Brazilian ê/ô before a nasal where European Portuguese writes é/ó ("econômico" / "económico"),
# and the circumflex of a hiatus that the 1990 agreement dropped ("vôo" / "voo").
_BRAZILIAN = re.compile(r"[êô](?=[mn])|ô(?=o)|ê(?=em)")
_EUROPEAN = re.compile(r"[éó](?=[mn])")


@dataclass(frozen=True)
class Analysis:
    """One reading of a form: its lemma (masculine singular), category, gender and number."""

    lemma: str
    category: str
    gender: str  # "m", "f" or "_" (either)
    number: str  # "s", "p" or "_"


@dataclass(frozen=True)
class _Rule:
    strip: str
    add: str
    condition: re.Pattern[str]
    tags: dict[str, str]
    derived: bool = False  # makes a word of another category (a noun, an adjective, a participle)

    def apply(self, stem: str) -> str | None:
        if not self.condition.search(stem) or (self.strip and not stem.endswith(self.strip)):
            return None
        return stem[: len(stem) - len(self.strip)] + self.add


class PortugueseMorphology:
    """Analyses and inflects Portuguese nominal words (nouns, adjectives, determiners)."""

    name = "Hunspell pt_PT (Projecto Natura)"

    def __init__(self, entries: Iterable[tuple[str, str, dict[str, str]]], rules: dict[str, list[_Rule]]):
        self._analyses: dict[str, list[Analysis]] = defaultdict(list)
        self._paradigms: dict[tuple[str, str], dict[tuple[str, str], str]] = defaultdict(dict)
        for word, flags, tags in entries:
            category = tags.get("CAT", "")
            for flag in flags:
                self._derive(word, [r for r in rules.get(flag, ()) if r.derived])
            if category not in NOMINAL:
                continue
            # A degree ("grandessíssimo") is a word of its own, not a form of its lemma's paradigm.
            lemma = word if "GR" in tags else tags.get("$lemma", word)
            if category in DETERMINERS:
                lemma = _SUPPLETIVE.get(lemma, lemma)
            self._add(word, lemma, category, tags)
            for flag in flags:
                for rule in rules.get(flag, ()):
                    form = None if rule.derived else rule.apply(word)
                    if form:
                        self._add(form, lemma, category, tags | rule.tags)

    def _derive(self, word: str, rules: list[_Rule]) -> None:
        """A derived paradigm ("governar" → governação, governações; "lacrar" → lacrado, lacrada…)."""
        forms = [(form, rule.tags) for rule in rules if (form := rule.apply(word))]
        if not forms:
            return
        singular = [f for f, t in forms if t["N"] == "s"]
        lemma = next((f for f, t in forms if t["N"] == "s" and t["G"] in ("m", BOTH)), (singular or [forms[0][0]])[0])
        for form, tags in forms:
            self._add(form, lemma, tags["CAT"], tags)

    def _add(self, form: str, lemma: str, category: str, tags: dict[str, str]) -> None:
        analysis = Analysis(lemma, category, tags.get("G", BOTH) or BOTH, tags.get("N", BOTH) or BOTH)
        if analysis not in self._analyses[form]:
            self._analyses[form].append(analysis)
        self._paradigms[(lemma, _PARADIGM.get(category, category))].setdefault((analysis.gender, analysis.number), form)

    def __len__(self) -> int:
        return len(self._analyses)

    def analyse(self, word: str, categories: frozenset[str] = NOMINAL) -> list[Analysis]:
        """Every reading of ``word`` (any case) in ``categories``; empty when the dictionary does not know it."""
        low = word.casefold()
        found = [a for a in self._analyses.get(low, ()) if a.category in categories]
        if not found and _BRAZILIAN.search(low):
            found = [a for a in self._analyses.get(_to_european(low), ()) if a.category in categories]
        return found

    def knows(self, word: str, categories: frozenset[str] = NOMINAL) -> bool:
        return bool(self.analyse(word, categories))

    def noun_gender(self, word: str) -> str | None:
        """ "m", "f", "_" (either: "artista") or None (not a noun the dictionary knows); nouns before noun-adjectives."""
        for categories in (frozenset({NOUN}), frozenset({NOUN_OR_ADJECTIVE})):
            genders = {a.gender for a in self.analyse(word, categories)}
            if genders:
                return genders.pop() if len(genders) == 1 else BOTH
        return None

    def form(self, analysis: Analysis, gender: str, number: str) -> str | None:
        """``analysis``'s lemma in ``gender`` and ``number``; an invariable gender or number is kept."""
        paradigm = self._paradigms.get((analysis.lemma, _PARADIGM.get(analysis.category, analysis.category)), {})
        for g in (gender, BOTH):
            for n in (number, BOTH):
                if (g, n) in paradigm:
                    return paradigm[(g, n)]
        return None

    def inflect(self, word: str, categories: frozenset[str], gender: str, number: str) -> str | None:
        """``word`` made to agree with a noun of ``gender`` and ``number``, in lower case and its own spelling.

        None when the dictionary does not know the word in those categories, or knows
        no such form of it.
        """
        low = word.casefold()
        for analysis in self.analyse(low, categories):
            new = self.form(analysis, gender, number)
            if new is not None:
                if low not in self._analyses and _BRAZILIAN.search(low):
                    new = _to_brazilian(new)
                return new
        return None


def _to_european(word: str) -> str:
    def european(match: re.Match[str]) -> str:
        before_nasal = word[match.end() : match.end() + 1] in ("m", "n")
        return {"ê": "é", "ô": "ó"}[match.group()] if before_nasal else {"ê": "e", "ô": "o"}[match.group()]

    return _BRAZILIAN.sub(european, word)


def _to_brazilian(word: str) -> str:
    return _EUROPEAN.sub(lambda m: {"é": "ê", "ó": "ô"}[m.group()], word)


# --- reading the files ----------------------------------------------------------------------


def _tags(text: str) -> dict[str, str]:
    """ "CAT=nc,G=m,N=s" or "$ao$CAT=cp,Prep=a$G=f,N=s" (lemma, tags, then what this form changes)."""
    out: dict[str, str] = {}
    if text.startswith("$"):
        _, lemma, *parts = text.split("$")
        out["$lemma"] = lemma
    else:
        parts = [text]
    for part in parts:
        for item in part.split(","):
            key, sep, value = item.partition("=")
            if sep:
                out[key.strip()] = value.strip()
    return out


def _derived(tags: dict[str, str]) -> dict[str, str] | None:
    """The tags of a rule that derives a nominal word with its gender and number, else None.

    Nouns and adjectives from verbs ("-ção", "-mento", "-dor", "-nte") and adjectival
    participles ("lacrado", T=ppa) are kept; degrees (superlatives, diminutives) are not.
    """
    if "G" not in tags or "N" not in tags or "GR" in tags:
        return None
    if tags.get("T") == "ppa":
        return {"CAT": ADJECTIVE, "G": tags["G"], "N": tags["N"]}
    if tags.get("CAT") in NOMINAL:
        return {"CAT": tags["CAT"], "G": tags["G"], "N": tags["N"]}
    return None


def read_affixes(lines: Iterable[str]) -> dict[str, list[_Rule]]:
    """The suffix rules that change only gender and number, or derive a nominal word, by flag."""
    rules: dict[str, list[_Rule]] = defaultdict(list)
    for line in lines:
        fields = line.split()
        if len(fields) < 6 or fields[0] != "SFX":
            continue
        _, flag, strip, add, condition, text = fields[:6]
        tags = _tags(text.lstrip("+"))
        derived = _derived(tags)
        if derived is None and not _INFLECTIONAL_TAGS.match(text.lstrip("+")):
            continue
        rules[flag].append(
            _Rule(
                strip="" if strip == "0" else strip,
                add="" if add == "0" else add.split("/")[0],
                condition=re.compile(f"{condition}$"),
                tags=derived or tags,
                derived=derived is not None,
            )
        )
    return rules


def read_entries(lines: Iterable[str]) -> Iterable[tuple[str, str, dict[str, str]]]:
    """(word, flags, tags) of each dictionary line ``word/flags<TAB>[tags]``; the count line is skipped."""
    for line in lines:
        word_part, _, rest = line.rstrip("\n").partition("\t")
        start, end = rest.find("["), rest.rfind("]")
        if not word_part or start < 0 or end < start:
            continue
        word, _, flags = word_part.partition("/")
        yield word, flags, _tags(rest[start + 1 : end])


def load_morphology(dic_path: Path) -> PortugueseMorphology:
    """The morphology from a Hunspell .dic and the .aff beside it (ValueError when either is missing)."""
    aff_path = dic_path.with_suffix(".aff")
    for path in (dic_path, aff_path):
        if not path.is_file():
            raise ValueError(f"{path} does not exist: install Debian's hunspell-pt-pt (scripts/install.sh)")
    with aff_path.open(encoding="utf-8") as aff, dic_path.open(encoding="utf-8") as dic:
        rules = read_affixes(aff)
        return PortugueseMorphology(read_entries(dic), rules)


@lru_cache(maxsize=4)
def default_morphology(language: str, path: Path = DEFAULT_PATHS[0]) -> PortugueseMorphology | None:
    """Portuguese: the installed dictionary's morphology, read once per process; None for English or when not installed."""
    if language.split("-")[0].casefold() != "pt" or not path.is_file():
        return None
    return load_morphology(path)
