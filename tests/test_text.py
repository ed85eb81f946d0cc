"""The deterministic engine's text tools: key phrases, sentences, year windows, formulas."""

from scholargraph.deterministic.text import (
    chemical_formulas,
    content_words,
    key_phrases,
    year_window,
)


def test_key_phrases_keep_multiword_terms_and_formula_case():
    phrases = key_phrases("How does machine learning compare with statistical models for "
                          "public health surveillance of TiO2 exposure?")
    assert phrases[:3] == ["public health surveillance", "machine learning", "statistical models"]
    assert "TiO2 exposure" in phrases


def test_a_concept_ends_before_the_questions_participle():
    """'How are systematic literature reviews conducted ...' screened every record for
    "systematic" and "reviews conducted": the participle is the question's verb, and
    "literature" (a question word in "what does the literature say") is part of the term."""
    assert key_phrases("How are systematic literature reviews conducted and reported in "
                       "software engineering?") == ["systematic literature reviews",
                                                    "software engineering"]
    assert set(key_phrases("Are children exposed to lead at risk of anaemia?")) == {
        "children", "lead", "risk", "anaemia"}
    assert key_phrases("randomized controlled trials of wind speed forecasting") == [
        "randomized controlled trials", "wind speed forecasting"]
    # after an adverb the participle is what is said of the concept, and stays with the adverb;
    # in a yes/no question on a copula both are asked of the subject, not part of its concept
    assert key_phrases("Pseudoknots are evolutionarily conserved.") == [
        "evolutionarily conserved", "pseudoknots"]
    assert key_phrases("Are pseudoknots evolutionarily conserved?") == ["pseudoknots"]
    assert not [p for p in key_phrases("What does the literature say about statins?")
                if "literature" in p]


def test_content_words_drop_question_and_stop_words():
    assert content_words("What is the effect of aspirin on the risk of stroke?") == [
        "aspirin", "risk", "stroke"]


def test_year_windows():
    assert year_window("trials between 2010 and 2020", 2026) == (2010, 2020)
    assert year_window("studies since 2015", 2026) == (2015, None)
    assert year_window("work in the last 5 years", 2026) == (2021, None)
    assert year_window("before 2001 only", 2026) == (None, 2001)
    assert year_window("no window here", 2026) == (None, None)


def test_formulas_are_real_elements_and_not_acronyms():
    found = chemical_formulas("Band gap of TiO2, LiFePO4 and GaAs measured by CNN on DNA and H2O")
    assert found == ["TiO2", "LiFePO4", "GaAs", "H2O"]
