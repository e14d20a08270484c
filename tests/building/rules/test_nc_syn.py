"""NC_Syn candidates: the crowd's gold synonym first, a model's synonyms of the whole compound after it, marked."""

from __future__ import annotations

from building.rules.synonyms.nc_syn import ModelNcProposal, nc_syn_candidates


def proposed(*texts: str, model: str = "served-chat") -> list[ModelNcProposal]:
    return [ModelNcProposal(text, model, "synonyms-en", 1, rank) for rank, text in enumerate(texts, 1)]


def test_the_gold_synonym_stays_first_and_the_models_proposals_follow_marked_as_the_models():
    found = nc_syn_candidates(
        "enthusiast", proposed("keen person", "go-getter"), "en", gold_synonym_source="paraphrases"
    )
    assert [(text, details["source"]) for text, details in found] == [
        ("enthusiast", "crowd"),
        ("keen person", "model"),
        ("go-getter", "model"),
    ]
    assert found[0][1] == {"source": "crowd", "gold_synonym_source": "paraphrases"}
    assert found[2][1] == {
        "source": "model",
        "model": "served-chat",
        "template": "synonyms-en",
        "template_version": 1,
        "model_rank": 2,
    }


def test_without_a_gold_synonym_the_models_first_proposal_comes_first():
    found = nc_syn_candidates("", proposed("The keen person", "go-getter"), "en")
    assert [(text, details["source"]) for text, details in found] == [("keen person", "model"), ("go-getter", "model")]


def test_a_proposal_that_is_the_gold_synonym_supports_it_instead_of_repeating_it():
    # Case, accents, number and a leading article aside, as the crowd's paraphrases are counted.
    found = nc_syn_candidates("terremoto", proposed("O Terremotos", "sismo"), "pt")
    assert [text for text, _ in found] == ["terremoto", "sismo"]
    assert found[0][1]["supported_by"] == [
        {"text": "O Terremotos", "model": "served-chat", "template": "synonyms-en", "template_version": 1, "rank": 1}
    ]


def test_a_word_two_models_proposed_is_one_candidate_supported_by_the_second():
    found = nc_syn_candidates("", [*proposed("zealot"), *proposed("Zealots", model="other-chat")], "en")
    assert len(found) == 1 and found[0][1]["model"] == "served-chat"
    assert [other["model"] for other in found[0][1]["supported_by"]] == ["other-chat"]


def test_a_refused_word_is_never_a_candidate_and_the_list_stops_at_the_limit():
    found = nc_syn_candidates(
        "", proposed("bastard", "a", "b", "c"), "en", blocks=lambda text: text == "bastard", limit=2
    )
    assert [text for text, _ in found] == ["a", "b"]
    assert nc_syn_candidates("", [], "en") == []


def test_a_gold_synonym_a_curator_picked_or_a_file_gave_is_not_called_the_crowds():
    for origin in ("curator", "file"):
        [(text, details)] = nc_syn_candidates("enthusiast", [], "en", gold_synonym_source=origin)
        assert (text, details["source"], details["gold_synonym_source"]) == ("enthusiast", origin, origin)
    assert nc_syn_candidates("enthusiast", [], "en")[0][1]["source"] == "crowd"  # a stored job without the field
