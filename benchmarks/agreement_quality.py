"""How often the Portuguese agreement rewrite gives the NCIMP experts' inflections (issue 17, item 4).

Usage: .venv/bin/python benchmarks/agreement_quality.py [--data PATH/TO/shared/data]
       [--dictionary /usr/share/hunspell/pt_PT.dic] [--misses N]

Reads the NCIMP Portuguese naturalistic files, takes the head-synonym and WordsSyn variants
in which the experts re-inflected the kept adjective or changed a word outside the compound
("os grandes abalos sísmicos" → "as grandes trepidações sísmicas"), realises the same
substitution with ``building.rules.grammar.realise`` and the Hunspell pt_PT morphology, and counts the
sentences where ours gives the experts' words (``building.rules.grammar.agreement_eval``), on all
compounds and on the development and held-out halves of the variant-quality benchmark's
split. Prints up to ``--misses`` sentences where ours differs, then one JSON line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.record import emit, save_flag  # noqa: E402
from building.lexicon.portuguese_morphology import DEFAULT_PATHS, load_morphology  # noqa: E402
from building.rules.expert_comparison import DEV, HELD_OUT, compound_key, split_halves  # noqa: E402
from building.rules.grammar.agreement_eval import compounds_in, measure_agreement  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--dictionary", type=Path, default=DEFAULT_PATHS[0])
    parser.add_argument("--misses", type=int, default=0)
    save_flag(parser)
    args = parser.parse_args()
    morphology = load_morphology(args.dictionary)
    directory = args.data / "ncimp" / "PT"
    score = measure_agreement(directory, morphology)
    for miss in score.misses[: args.misses]:
        print(f"{miss['kind']}: experts {miss['experts']}\n{' ' * len(miss['kind'])}  ours    {miss['ours']}")
    # The variant-quality benchmark's halves (issue 17, item 7): the same seed, the same keys.
    halves = split_halves(compound_key(c) for c in compounds_in(directory))
    by_half = {}
    for half in (DEV, HELD_OUT):
        chosen = {c for c in compounds_in(directory) if halves[compound_key(c)] == half}
        by_half[half] = measure_agreement(directory, morphology, chosen).as_dict()
        print(
            f"{half:>8}: {by_half[half]['matched']}/{by_half[half]['rewritten_by_experts']} = {by_half[half]['rate']:.1%}"
        )
    print(f"     all: {score.matched}/{score.rewritten_by_experts} = {score.rate:.1%}")
    result = {"benchmark": "agreement_quality", "dictionary": str(args.dictionary), **score.as_dict(), **by_half}
    emit("agreement_quality", result, save=args.save)


if __name__ == "__main__":
    main()
