"""The gold synonym from the crowd's paraphrases: normalised counting, evidence for ties, the reason kept."""

from __future__ import annotations

from building.rules.synonyms.gold_synonym import paraphrase_key, pick_gold_synonym

ZIPF = {"terremoto": 3.9, "sismo": 3.2, "abalo sísmico": 2.1, "tremor": 3.5, "parking lot": 4.1, "car lot": 2.0}


def frequency(text: str) -> float:
    return 10 ** ZIPF[text] / 1000 if text in ZIPF else 0.0


def test_case_accents_number_and_articles_count_as_one_proposal():
    assert paraphrase_key("Terremotos", "pt") == paraphrase_key("o terremoto", "pt") == "terremoto"
    assert paraphrase_key("abalos sísmicos", "pt") == paraphrase_key("Abalo Sismico", "pt")
    assert paraphrase_key("The parking lots", "en") == paraphrase_key("parking lot", "en")
    assert paraphrase_key("a", "pt") == "a"  # an article alone is kept, not emptied


def test_terremoto_and_terremotos_are_counted_together_and_beat_a_raw_tie():
    pick = pick_gold_synonym(
        [("terremoto", 2), ("terremotos", 1), ("sismo", 2), ("abalo sísmico", 1)], [], "pt", frequency
    )
    assert pick.text == "terremoto"
    assert pick.reason == "most frequent paraphrase: 3 proposals (terremoto, terremotos counted together)"
    assert [c.text for c in pick.candidates] == ["terremoto", "sismo", "abalo sísmico"]
    assert pick.as_dict()["candidates"][1] == {"text": "sismo", "type": 2, "token": 0, "zipf": 3.2, "forms": ["sismo"]}


def test_a_tie_goes_to_the_paraphrase_proposed_most_for_the_sentences():
    pick = pick_gold_synonym([("tremor", 2), ("terremoto", 2)], [("tremores", 2), ("terremoto", 1)], "pt", frequency)
    assert pick.text == "tremor"
    assert "proposed most for the sentences (2 token-level)" in pick.reason and "tied with terremoto" in pick.reason


def test_then_to_the_one_proposed_first_as_the_ncimp_experts_did():
    # Not the more common word, nor the first alphabetically: the order of the proposals decides.
    first = pick_gold_synonym([("sismo", 1), ("terremoto", 1)], [], "pt", frequency)
    assert first.text == "sismo" and first.reason.endswith("as often in the sentences; proposed first")
    assert pick_gold_synonym([("terremoto", 1), ("sismo", 1)], [], "pt", frequency).text == "terremoto"
    assert pick_gold_synonym([("zeta", 1), ("alfa", 1)], [], "pt", frequency).text == "zeta"
    # A form proposed later counts with its group, which keeps the place of its first proposal.
    grouped = pick_gold_synonym([("sismo", 1), ("tremor", 1), ("sismos", 1), ("tremores", 1)], [], "pt", frequency)
    assert grouped.text == "sismo" and [c.first for c in grouped.candidates] == [0, 1]
    # The language's frequency is still there for the curator.
    assert first.as_dict()["candidates"][1]["zipf"] == 3.9


def test_the_pick_reads_in_the_singular_without_its_article():
    pick = pick_gold_synonym([("The parking lot", 1), ("parking lots", 2), ("car lot", 2)], [], "en", frequency)
    assert pick.text == "parking lot" and pick.candidates[0].type_count == 3
    assert pick_gold_synonym([("Terremotos", 2)], [], "pt", frequency).text == "terremotos"  # no singular proposed
    assert pick_gold_synonym([], [("anything", 3)], "en", frequency) is None


def test_an_offensive_paraphrase_is_never_the_gold_synonym_however_often_proposed():
    from building.rules.synonyms.offensive import word_list

    # NCTTI's crowd proposed "slut" for "loose woman" most often: the release must not carry it.
    paraphrases = [("slut", 5), ("promiscuous woman", 3), ("easy woman", 1)]
    pick = pick_gold_synonym(paraphrases, [], "en", frequency, word_list("en").blocks)
    assert pick.text == "promiscuous woman"
    assert pick.reason.endswith("left out as offensive: slut")
    assert "slut" not in [c.text for c in pick.candidates]
    assert pick_gold_synonym(paraphrases, [], "en", frequency).text == "slut"  # the list is what refuses it
    assert pick_gold_synonym([("slut", 2)], [], "en", frequency, word_list("en").blocks) is None
