"""The data card (README.md) of a release (pure: no Django import)."""

from __future__ import annotations

from datasets import vocabulary
from datasets.formats.ncimp_columns import SCORES_COLUMNS, SCORES_FILE
from releases.formats import tidy
from releases.formats.datapackage import describe_file
from releases.formats.machine import MACHINE_NOTE, card_section
from releases.formats.meta import CROISSANT, DATAPACKAGE, Creator, ReleaseMeta
from releases.formats.rai import card_section as responsible_use
from releases.formats.rai import responsible_ai
from releases.formats.score_sources import simulated_note, sources
from releases.snapshot import Snapshot

README = "README.md"
CLASS_COLUMNS = [*vocabulary.CLASSES, vocabulary.UNCLASSIFIED]
CLASS_LABELS = vocabulary.CLASS_LABELS_AND_UNCLASSIFIED

NORMALISATIONS = [
    "Rows are sorted by compound key (case-folded, in code-point order); the public files use an "
    "accent-insensitive alphabetical order, so most rows move (175 of 180 in each public Portuguese file).",
    "Tag lists are written from the stored spans. A public tag list whose length does not match the "
    "words is replaced by the list of the span recovered from the minimal-pair difference (English "
    "neutral.csv: 1124 cells, the `only head synonym altK` columns; Portuguese files: none). A variant "
    "without a span gets a list of `False`.",
    "Copy columns (`entire original sentence`, `entire neutral sentence`) repeat the sentence exactly and "
    "mark every word (the public Portuguese neutral.csv has a trailing space in all 180 of them).",
    "`compound noun`, `compound noun head` and `compound noun modifier` hold their variant; without one, "
    "the compound as it occurs in the sentence, its head and its modifier.",
    "Columns that name the same variant (same kind, rank, isolation and pattern) hold the same cell. "
    "Variants no public column can hold (long neutral sentences, ranks or kinds a header lacks) are in "
    "the tidy files only.",
    "Files are UTF-8 with `\\n` line endings and quotes only where needed (the public English neutral.csv "
    "has `\\r\\n`); a language gets all four NCIMP files, header only when it has no rows.",
    f"Scores are rounded to {tidy.FLOAT_DECIMALS} decimals in tidy/pairs.* and the scores table; "
    "tidy/compounds.jsonl keeps them at full precision.",
]


def _number(x: float | None, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def _counts(snapshot: Snapshot) -> list[str]:
    counts = snapshot.counts()
    languages = list(snapshot.languages)
    lines = ["## Contents", "", "Compounds by language and compositionality class:", ""]
    rows = []
    for lang in languages:
        c = counts.get(lang, {"compounds": 0, "classes": {}, "sentences": 0, "variants": {}})
        rows.append(
            [
                f"{vocabulary.language_name(lang)} ({lang})",
                c["compounds"],
                *(c["classes"].get(cls, 0) for cls in CLASS_COLUMNS),
                c["sentences"],
                sum(c["variants"].values()),
            ]
        )
    lines += _table(["Language", "Compounds", *(CLASS_LABELS[c] for c in CLASS_COLUMNS), "Sentences", "Pairs"], rows)
    lines += ["", "Minimal pairs by probe kind:", ""]
    kinds = [k for k, _ in vocabulary.VARIANT_KIND_CHOICES]
    kinds += sorted({k for c in counts.values() for k in c["variants"]} - set(kinds))
    rows = [
        [f"`{kind}`", *(counts.get(lang, {}).get("variants", {}).get(kind, 0) for lang in languages)]
        for kind in kinds
        if any(counts.get(lang, {}).get("variants", {}).get(kind) for lang in languages)
    ]
    lines += _table(["Probe kind", *languages], rows) if rows else ["(none)"]
    return lines


def _agreement(snapshot: Snapshot) -> list[str]:
    lines = ["## Agreement", ""]
    if not snapshot.agreement:
        source = "reference scores" if snapshot.scores.source == "reference" else "scores"
        return lines + [f"The release carries {source} with no ratings behind them here, so no agreement was computed."]
    lines += ["Krippendorff's alpha with its 95% bootstrap interval:", ""]
    rows = [
        [
            a.language,
            a.question,
            a.level,
            _number(a.alpha),
            f"[{_number(a.low)}, {_number(a.high)}]",
            a.n_items,
            a.n_ratings,
            a.source,
        ]
        for a in snapshot.agreement
    ]
    return lines + _table(
        ["Language", "Question", "Level", "Alpha", "95% interval", "Items", "Ratings", "Source"], rows
    )


def _scores(snapshot: Snapshot) -> list[str]:
    info = snapshot.scores
    lines = ["## Scores", ""]
    if note := simulated_note(info):
        lines += [f"**{note}**", ""]
    lines += ["Where each language's scores come from:", ""]
    lines += [f"- {sentence}" for sentence in sources(info)] or [
        "- the reference scores stored on the compounds (as imported from their source)"
    ]
    lines.append("")
    policy = dict(info.policy or {})
    if policy:
        name = policy.pop("name", "") or "unnamed"
        params = ", ".join(f"{k}={policy[k]!r}" for k in sorted(policy)) or "no parameters"
        lines.append(f"Filtering policy: `{name}` ({params}).")
    else:
        lines.append("Filtering policy: none (every rating counts).")
    lines.append(f"Aggregation: {info.aggregation} of the ratings per item.")
    lines += ["", f"The columns of `{SCORES_FILE}` are computed as follows:", ""]
    lines += [f"- `{name}`: {text}" for name, (_, text) in SCORES_COLUMNS.items()]
    return lines


def build_readme(paths: list[str], snapshot: Snapshot, meta: ReleaseMeta) -> bytes:
    """README.md for a release whose files are ``paths`` (README, datapackage and manifest are added)."""
    snapshot = snapshot.sorted()
    created = f", created {meta.created}" if meta.created else ""
    code = f", built by workbench {meta.code_version}" if meta.code_version else ""
    simulated = " (includes simulated ratings)" if snapshot.scores.simulated else ""
    lines = [f"# {meta.title}{simulated}", "", f"Version {meta.version}{created}{code}.", ""]
    if note := simulated_note(snapshot.scores):
        lines += [note, ""]
    if snapshot.machine_ratings is not None:
        lines += [MACHINE_NOTE, ""]
    if meta.doi:
        lines += [f"DOI: [{meta.doi}]({meta.doi_url})", ""]
    if meta.creators:
        lines += ["Creators: " + "; ".join(_creator(c) for c in meta.creators) + ".", ""]
    if meta.description:
        lines += [meta.description, ""]
    lines += _counts(snapshot) + [""] + _agreement(snapshot) + [""] + _scores(snapshot) + [""]
    if machine := card_section(snapshot):
        lines += [*machine, ""]
    lines += [*responsible_use(responsible_ai(snapshot, meta)), ""]
    lines += ["## Files", ""]
    listed = sorted({*paths, README, DATAPACKAGE})
    lines += [f"- `{p}`: {describe_file(p)}" for p in listed if p not in (README, DATAPACKAGE, CROISSANT)]
    lines += [
        f"- `{README}`: this data card.",
        f"- `{DATAPACKAGE}`: Frictionless Data Package describing every file and column.",
        f"- `{CROISSANT}`: {describe_file(CROISSANT)}",
        "- `manifest.json`: every file with its sha256 checksum and size.",
        "",
        "In the NCIMP files every text column is followed by its `_tag` column: a Python-style list of "
        "booleans over the whitespace tokens, True on the target span (read it with `ast.literal_eval`). "
        f"Spans in the tidy files are `[start, end)` character offsets. JSON Lines files have one object per "
        f"line; scores there are rounded to {tidy.FLOAT_DECIMALS} decimals.",
        "",
        "## Normalisations",
        "",
        "Compared with the public NCIMP release (He et al. 2024) the NCIMP files differ only in these ways:",
        "",
    ]
    lines += [f"{i}. {text}" for i, text in enumerate(NORMALISATIONS, start=1)]
    lines += [
        "",
        "## Verifying the files",
        "",
        "`manifest.json` lists every file with its sha256. With `jq` and coreutils:",
        "",
        "```sh",
        "jq -r '.files[] | \"\\(.sha256)  \\(.path)\"' manifest.json | sha256sum -c -",
        "```",
        "",
        "or with Python alone:",
        "",
        "```sh",
        "python -c \"import hashlib, json; m = json.load(open('manifest.json')); "
        "bad = [f['path'] for f in m['files'] if hashlib.sha256(open(f['path'], 'rb').read()).hexdigest() "
        "!= f['sha256']]; print(bad or 'all files match')\"",
        "```",
        "",
        "In the workbench, `releases.formats.verify_directory(path)` does the same and names every "
        "changed, missing or added file.",
        "",
        "## Licence",
        "",
        _licence(meta),
        "",
        "## Citation",
        "",
    ]
    lines += [meta.citation.strip(), ""] if meta.citation.strip() else ["(No citation given for this release.)", ""]
    lines += [
        "The NCIMP layout and the minimal-pair design follow He et al. 2024, Computational Linguistics, "
        '"Investigating Idiomaticity in Word Representations"; please cite it too.',
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _creator(creator: Creator) -> str:
    affiliation = f" ({creator.affiliation})" if creator.affiliation else ""
    orcid = f" [ORCID {creator.orcid}](https://orcid.org/{creator.orcid})" if creator.orcid else ""
    return f"{creator.name}{affiliation}{orcid}"


def _licence(meta: ReleaseMeta) -> str:
    entry = meta.licence_entry()
    link = f" ({entry['path']})" if entry.get("path") else ""
    return f"{entry['title']} (`{entry['name']}`){link}."
