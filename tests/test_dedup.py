"""Deduplication: identifier forms, preprint + published pairs, and the merges it must refuse."""

from __future__ import annotations

from scholargraph.dedup import (
    CitedPlace,
    Pages,
    ReviewVersion,
    author_key,
    cited_errata,
    cochrane_review,
    deduplicate,
    names_agree,
    normalize_title,
    normalize_volume,
    notice_kind,
    parse_pages,
    title_variants,
    venue_names,
    venues_agree,
)
from scholargraph.records import Work

TITLE = "Reputation offsets trust judgments based on social biases among Airbnb users"


def work(**fields: object) -> Work:
    fields.setdefault("title", TITLE)
    fields.setdefault("authors", ["Abrahao, Bruno", "Parigi, Paolo"])
    fields.setdefault("year", 2017)
    return Work(**fields)


def test_doi_spellings_are_one_work() -> None:
    records = [
        work(doi="https://doi.org/10.1073/PNAS.1604234114", sources=["openalex"]),
        work(title="Another title entirely", doi="doi:10.1073/pnas.1604234114", sources=["web"]),
        work(doi="10.1073/pnas.1604234114", sources=["pubmed"], pmid="28827354"),
    ]
    result = deduplicate(records)
    assert result.duplicates_removed == 2
    [merged] = result.works
    assert merged.doi == "10.1073/pnas.1604234114"
    assert merged.pmid == "28827354"
    assert merged.sources == ["openalex", "web", "pubmed"]
    assert [m.rule for m in result.merges] == ["doi", "doi"]
    assert {m.merged_id for m in result.merges} == {"doi:10.1073/pnas.1604234114"}


def test_arxiv_versions_are_one_work() -> None:
    records = [
        work(arxiv_id="2101.00001v1", kind="preprint", sources=["arxiv"]),
        work(arxiv_id="arXiv:2101.00001v3", kind="preprint", sources=["web"]),
        work(doi="10.48550/arXiv.2101.00001", kind="preprint", sources=["openalex"]),
    ]
    result = deduplicate(records)
    assert len(result.works) == 1
    assert result.works[0].arxiv_id == "2101.00001"
    assert {m.rule for m in result.merges} == {"arxiv"}


def test_pmid_and_pmcid_forms_link_records() -> None:
    records = [
        work(pmid="https://pubmed.ncbi.nlm.nih.gov/28827354/", sources=["web"]),
        work(pmid=28827354, pmcid="PMC5604045", sources=["pubmed"]),
        work(title="Untitled record", pmcid="5604045", sources=["openalex"]),
    ]
    result = deduplicate(records)
    assert len(result.works) == 1
    assert result.works[0].pmcid == "PMC5604045"
    assert [m.rule for m in result.merges] == ["pmid", "pmcid"]


def test_preprint_and_published_version_merge_keeping_both_ids() -> None:
    preprint = work(title=TITLE + ".", arxiv_id="1609.00001v2", kind="preprint", year=2016,
                    venue="arXiv", abstract="A much longer abstract of the preprint, " * 5,
                    authors=["B. Abrahao", "P. Parigi"], sources=["arxiv"])
    published = work(doi="10.1073/pnas.1604234114", venue="PNAS", abstract="Short.",
                      sources=["openalex"])
    result = deduplicate([preprint, published])
    [merged] = result.works
    assert merged.doi == "10.1073/pnas.1604234114"
    assert merged.arxiv_id == "1609.00001"
    assert merged.venue == "PNAS"
    assert merged.abstract == preprint.abstract
    assert merged.sources == ["arxiv", "openalex"]
    assert merged.merged_by == ["fuzzy_title"]
    [merge] = result.merges
    assert (merge.rule, merge.kept_id, merge.merged_id, merge.work_id) == (
        "fuzzy_title", "arxiv:1609.00001", "doi:10.1073/pnas.1604234114", merged.id)


def test_near_identical_titles_with_other_year_or_author_stay_apart() -> None:
    records = [
        work(year=2017),
        work(title=TITLE + "s", year=2019),
        work(title=TITLE.lower(), authors=["Smith, John", "Doe, Jane"]),
        work(title=TITLE, authors=[]),
    ]
    result = deduplicate(records)
    assert result.duplicates_removed == 0
    assert result.works == records


def test_conflicting_identifiers_veto_a_merge() -> None:
    two_pmids = [work(pmid="111", sources=["pubmed"]), work(pmid="222", sources=["pubmed"])]
    two_dois = [work(doi="10.1073/pnas.1604234114"), work(doi="10.1073/pnas.1604234115")]
    assert deduplicate(two_pmids).duplicates_removed == 0
    assert deduplicate(two_dois).duplicates_removed == 0


def test_identifier_links_are_transitive_and_order_is_first_appearance() -> None:
    other = work(title="A different paper about something else", doi="10.1000/other")
    records = [
        other,
        work(doi="10.1000/a", sources=["openalex"]),
        work(doi="10.1000/a", pmid="42", sources=["pubmed"]),
        work(title="Mangled", pmid="42", openalex_id="https://openalex.org/W42", sources=["web"]),
        work(title="Mangled again", openalex_id="W42", sources=["openalex"]),
    ]
    result = deduplicate(records)
    assert [w.doi for w in result.works] == ["10.1000/other", "10.1000/a"]
    assert result.works[1].openalex_id == "W42"
    assert result.duplicates_removed == 3
    assert [m.rule for m in result.merges] == ["doi", "pmid", "openalex"]


def test_normalisation_helpers() -> None:
    assert normalize_title("[Étude  <i>in vivo</i> des cellules.]") == "etude in vivo des cellules"
    assert author_key("Zuna, R E") == author_key("R. E. Zuna") == author_key("Zuna RE") == "zuna"
    assert author_key("Gottfried Vossen") == "vossen"


def test_same_title_in_two_journals_or_two_trials_stays_apart() -> None:
    guideline = {"title": "Screening guidelines for the prevention and early detection of "
                     "cervical cancer", "authors": ["Saslow, D", "Solomon, D"], "year": 2012}
    trial = {"authors": ["Low, D. E."], "year": 2011, "venue": "J Antimicrob Chemother"}
    records = [
        Work(**guideline, venue="American Journal of Clinical Pathology"),
        Work(**guideline, venue="CA: a Cancer Journal for Clinicians"),
        Work(title="FOCUS 1: a randomized phase III trial of ceftaroline", **trial),
        Work(title="FOCUS 2: a randomized phase III trial of ceftaroline", **trial),
    ]
    assert deduplicate(records).duplicates_removed == 0


def test_journal_abbreviations_and_database_notes_still_merge() -> None:
    common = {"authors": ["Noris, M.", "Remuzzi, G."], "year": 2009}
    records = [
        Work(title="Atypical hemolytic-uremic syndrome", venue="New England Journal of Medicine",
             **common),
        Work(title="[Atypical hemolytic uremic syndrome]. [Review] [88 refs]",
             venue="N Engl J Med", **common),
        Work(title="Atypical Hemolytic-Uremic Syndrome.", venue="The New England journal of "
             "medicine = N Engl J Med", **common),
    ]
    result = deduplicate(records)
    assert result.duplicates_removed == 2
    assert {m.rule for m in result.merges} == {"fuzzy_title"}


def test_journal_names_spelt_the_british_way_or_joined_to_their_subtitle() -> None:
    pairs = [("Int J Gynaecol Obstet", "International Journal of Gynecology & Obstetrics"),
             ("Paediatr Anaesth", "Pediatric Anesthesia"),
             ("Dis Oesophagus", "Diseases of the Esophagus"),
             ("JAMA", "JAMA - Journal of the American Medical Association"),
             ("Haematologica", "Haematologica-the Hematology Journal")]
    for short, full in pairs:
        assert venues_agree(venue_names(short), venue_names(full)), (short, full)
    # a journal is not its sister journal, whatever the spelling
    for one, other in [("Obstet Gynecol", "Int J Gynaecol Obstet"),
                       ("Paediatr Anaesth", "Anaesthesia")]:
        assert not venues_agree(venue_names(one), venue_names(other)), (one, other)
    common = {"title": "Misoprostol before hysteroscopy in nulliparous women: a randomised trial",
              "authors": ["Adeyemi, K."], "year": 2014}
    records = [Work(venue="Int J Gynaecol Obstet", **common),
               Work(venue="International Journal of Gynecology and Obstetrics", **common),
               Work(venue="Obstetrics and Gynecology", **common)]
    assert deduplicate(records).groups == [[0, 1], [2]]


def test_one_source_never_lists_a_work_twice_without_shared_ids() -> None:
    column = {"title": "Book review column", "authors": ["Karl Aberer"], "year": 2002,
              "venue": "SIGMOD Record"}
    records = [Work(**column, sources=["openalex"]), Work(**column, sources=["openalex"]),
               Work(**column, sources=["pubmed"])]
    assert deduplicate(records[:1] + records[2:]).groups == [[0, 1]]
    # the PubMed record matches two OpenAlex records: it cannot tell which is its twin
    assert deduplicate(records).groups == [[0], [1], [2]]


def test_a_preprint_and_the_paper_in_one_source_are_not_ambiguous() -> None:
    common = {"title": TITLE, "authors": ["Abrahao, Bruno"]}
    records = [
        Work(**common, year=2016, kind="preprint", venue="arXiv", sources=["openalex"]),
        Work(**common, year=2017, venue="PNAS", sources=["openalex"]),
        Work(**common, year=2017, venue="Proc Natl Acad Sci U S A", sources=["pubmed"]),
    ]
    assert deduplicate(records).groups == [[0, 1, 2]]


APPENDECTOMY = "Laparoscopic versus open appendectomy in children: a randomized trial"


def test_same_volume_and_first_page_stand_in_for_a_translated_journal_name() -> None:
    common = {"authors": ["Wang, L.", "Chen, H."], "year": 2015, "volume": "53"}
    transliterated = Work(title=APPENDECTOMY, venue="Zhonghua Wai Ke Za Zhi", pages="412-416",
                          **common)
    translated = Work(title=f"[{APPENDECTOMY.replace('randomized', 'randomised')}]",
                      venue="Chinese Journal of Surgery", pages="412-6", issue="6", **common)
    result = deduplicate([transliterated, translated])
    [merge] = result.merges
    assert merge.rule == "fuzzy_title"
    assert "same volume and first page" in merge.detail
    assert result.works[0].pages == "412-416"
    assert result.works[0].issue == "6"
    # without the place in the journal, two journal names are two publications
    unplaced = translated.model_copy(update={"volume": None, "pages": None})
    assert deduplicate([transliterated, unplaced]).duplicates_removed == 0


def test_two_volumes_or_disjoint_pages_are_two_publications() -> None:
    common = {"title": APPENDECTOMY, "authors": ["Wang, L."], "year": 2015,
              "venue": "Pediatric Surgery International"}
    article = Work(**common, volume="31", pages="412-416")
    assert deduplicate([article, Work(**common, volume="32", pages="412-416")]
                       ).duplicates_removed == 0
    # the same title on one page later in the volume: a notice printed without its label
    assert deduplicate([article, Work(**common, volume="31", pages="1187")]
                       ).duplicates_removed == 0
    # overlapping ranges (a mistyped first page) and an unknown volume do not contradict
    assert deduplicate([article, Work(**common, volume="31", pages="414-416")]
                       ).duplicates_removed == 1
    assert deduplicate([article, Work(**common, pages="88-92")]).duplicates_removed == 1


def test_an_electronic_locator_does_not_contradict_printed_pages() -> None:
    common = {"title": "Cervical screening with HPV testing in primary care: cohort study",
              "authors": ["Hartley, J."], "year": 2010, "venue": "BMJ", "volume": "340"}
    assert deduplicate([Work(**common, pages="c1804"), Work(**common, pages="1014")]
                       ).duplicates_removed == 1


def test_an_article_online_ahead_of_print_joins_its_printed_record() -> None:
    common = {"title": "Video-assisted thoracoscopy after chest trauma: a systematic review",
              "authors": ["Keller, A. T.", "Moss, D."]}
    online = Work(**common, year=2012, venue="Langenbeck's Archives of Surgery", pages="1-9")
    printed = Work(**common, year=2013, venue="Langenbecks Arch Surg", volume="398",
                   pages="515-523")
    assert deduplicate([online, printed]).duplicates_removed == 1
    two_years = online.model_copy(update={"year": 2011})
    assert deduplicate([two_years, printed]).duplicates_removed == 0
    # a record without volume a year after the printed one is next year's item, not its
    # online version: a recurring column, or a meeting abstract given no volume
    next_year = online.model_copy(update={"year": 2014})
    assert deduplicate([next_year, printed]).duplicates_removed == 0
    column = {"title": "Gateways to clinical trials in oncology", "authors": ["Bayes, M."],
              "venue": "Methods Find Exp Clin Pharmacol"}
    assert deduplicate([Work(**column, year=2006, volume="28", pages="185-206"),
                        Work(**column, year=2007)]).duplicates_removed == 0


def test_a_year_off_by_one_in_one_volume_and_a_group_author() -> None:
    title = "Results of a randomised trial of HPV triage in women with borderline cytology"
    place = {"volume": "190", "pages": "1201-1210"}
    group = Work(title=title, authors=["TRIAGE Study Group"], year=2004,
                 venue="Am J Obstet Gynecol", **place)
    named = Work(title=title, authors=["Harper, D. M.", "Nolan, P."], year=2004,
                 venue="American Journal of Obstetrics & Gynecology", **place)
    print_year = Work(title=title, authors=["Harper, D M", "Nolan, P"], year=2005,
                      venue="Am J Obstet Gynecol", volume="190", pages="1201-10")
    assert deduplicate([group, named, print_year]).groups == [[0, 1, 2]]
    unplaced = [w.model_copy(update={"volume": None, "pages": None}) for w in (group, named)]
    assert deduplicate(unplaced).duplicates_removed == 0


def test_volume_and_page_range_join_two_translations_of_one_title() -> None:
    common = {"year": 1996, "volume": "13", "pages": "45-50"}
    french = Work(title="[Antibiotic prophylaxis in lung surgery: a double-blind comparison of "
                  "cefazolin and placebo]", authors=["Dupont, M.", "Leroy, P."],
                  venue="Rev Mal Respir", **common)
    english = Work(title="Cefazolin versus placebo for prophylaxis in lung surgery. A "
                   "randomised double-blind study", authors=["Dupont, Marc", "Leroy, Pierre"],
                   venue="Revue des Maladies Respiratoires", **common)
    result = deduplicate([french, english])
    [merge] = result.merges
    assert merge.rule == "volume_pages"
    assert result.works[0].merged_by == ["volume_pages"]
    one_page = [w.model_copy(update={"pages": "45"}) for w in (french, english)]
    other_author = english.model_copy(update={"authors": ["Martin, J."]})
    other_paper = english.model_copy(update={
        "title": "Sleep apnoea in long-distance drivers: prevalence and screening"})
    for pair in (one_page, [french, other_author], [french, other_paper]):
        assert deduplicate(pair).duplicates_removed == 0


ECULIZUMAB = "Eculizumab for atypical haemolytic uraemic syndrome in adults"
NEJM = {"year": 2009, "venue": "New England Journal of Medicine", "volume": "360"}
AUTHORS = ["Lindqvist, J.", "Berg, T.", "Okafor, C."]


def test_notice_labels_are_recognised_and_stripped_to_the_work_title() -> None:
    base = normalize_title(ECULIZUMAB)
    labelled = {
        f"Erratum: {ECULIZUMAB}": "erratum",
        f"Correction to: {ECULIZUMAB}": "erratum",
        f"{ECULIZUMAB} (vol 360, pg 542, 2009)": "erratum",
        f"{ECULIZUMAB} (New England Journal of Medicine (2009) 360 (542-544))": "erratum",
        f"{ECULIZUMAB} - Reply": "reply",
        f"{ECULIZUMAB} - Reply to Haddad et al": "reply",
        f"Reply to: {ECULIZUMAB}": "reply",
        f"{ECULIZUMAB} AUTHORS REPLY": "reply",
        f"Re: {ECULIZUMAB}": "comment",
        f"Comment on: {ECULIZUMAB}": "comment",
        f"Correction notice: {ECULIZUMAB}": "erratum",
        f"Addendum: {ECULIZUMAB}": "erratum",
        f"Authors' response: {ECULIZUMAB}": "reply",
        f"In response to {ECULIZUMAB}": "reply",
        f"Response to: {ECULIZUMAB}": "reply",
        f"{ECULIZUMAB} (Response)": "reply",
        f"Comment: {ECULIZUMAB}": "comment",
        f"Commentary: {ECULIZUMAB}": "comment",
    }
    for title, kind in labelled.items():
        assert (notice_kind(title), normalize_title(title)) == (kind, base), title
    noted = f"{ECULIZUMAB}.[Erratum appears in N Engl J Med. 2009 Jun 4;360(23):2487 Note: " \
            "Berg, Tove [added]].[Erratum"
    assert (notice_kind(noted), normalize_title(noted)) == (None, base)
    assert cited_errata(noted) == (CitedPlace("360", "23", 2487),)
    assert cited_errata("Trial X.[Erratum appears in Am J Clin Pathol 1990 Oct;94(4):526]") == (
        CitedPlace("94", "4", 526),)
    assert notice_kind("Correction of adolescent scoliosis with pedicle screws") is None
    assert notice_kind("Retraction: Gene therapy for sickle cell disease") == "retraction"
    assert normalize_title("Question - reply dynamics in songbird duets") == (
        "question reply dynamics in songbird duets")
    assert notice_kind(f"Retraction note to: {ECULIZUMAB}") == "retraction"
    assert notice_kind(f"Expression of concern: {ECULIZUMAB}") == "concern"
    assert notice_kind(f"Letter to the editor: {ECULIZUMAB}") == "comment"
    # a study of a treatment's response is no reply
    assert notice_kind("Response to rituximab in warm autoimmune haemolytic anaemia") is None
    assert notice_kind("Responses to eculizumab in children: a cohort") is None


def test_a_notice_under_the_work_authors_stays_apart_from_the_work() -> None:
    """The authors answer the letters about their article, and a database lists a notice
    (a correction, a retraction, an expression of concern) under the article's authors: the
    label alone tells the notice from the work."""
    common = {"authors": ["Okafor, N.", "Brandt, L."], "year": 2019, "venue": "Transplantation"}
    title = "Eculizumab after kidney transplantation in atypical haemolytic uraemic syndrome"
    article = Work(title=title, **common)
    for label in ("Authors' response: {}", "In response to {}", "Response to: {}",
                  "Comment: {}", "Correction notice: {}", "Addendum: {}",
                  "Retraction note to: {}", "Expression of concern: {}"):
        notice = Work(title=label.format(title), **common)
        assert deduplicate([article, notice]).duplicates_removed == 0, label
        # two databases' records of one notice are still one notice
        assert deduplicate([notice, notice.model_copy(update={"venue": "Transplant"})]
                           ).duplicates_removed == 1, label


def test_an_erratum_the_article_names_is_attached_with_its_own_identifiers() -> None:
    erratum = Work(title=f"{ECULIZUMAB} (vol 360, pg 542, 2009)", authors=["Berg, T."],
                   pages="2487", issue="23", pmid="19494218", doi="10.1056/nejmx090022",
                   sources=["openalex"], **NEJM)
    medline = Work(title=f"{ECULIZUMAB}.[Erratum appears in N Engl J Med. 2009 Jun 4;"
                   "360(23):2487]", authors=AUTHORS, pages="542-544", issue="5",
                   pmid="19179321", sources=["pubmed"], **NEJM)
    crossref = Work(title=ECULIZUMAB, authors=AUTHORS, pages="542-4", issue="5",
                    doi="10.1056/nejmc0808527", sources=["web"], **NEJM)
    embase = erratum.model_copy(update={
        "title": f"Erratum: {ECULIZUMAB} (New England Journal of Medicine (2009) 360 (542-544))",
        "pmid": None, "doi": None, "pages": "2487-2487", "sources": ["embase"]})
    result = deduplicate([erratum, medline, crossref, embase])
    assert result.groups == [[0, 1, 2, 3]]
    [work] = result.works
    # the article's fields and identifiers, never the erratum's, though it came first
    assert (work.title, work.pages, work.pmid, work.doi) == (
        medline.title, "542-544", "19179321", "10.1056/nejmc0808527")
    assert work.authors == AUTHORS
    assert work.sources == ["pubmed", "web", "openalex", "embase"]
    assert work.merged_by == ["fuzzy_title", "erratum"]
    attached = [merge for merge in result.merges if merge.rule == "erratum"]
    assert {merge.merged_id for merge in attached} == {"doi:10.1056/nejmx090022", embase.id}
    assert {merge.kept_id for merge in result.merges} == {"pmid:19179321"}
    [notice] = [merge for merge in attached if merge.merged_id == erratum.id]
    assert notice.identifiers == ["doi:10.1056/nejmx090022", "pmid:19494218"]
    assert "names its erratum at volume 360, page 2487" in notice.detail
    # named once in the work, though two records (one without identifiers) describe it
    assert work.notices == ["Erratum: DOI 10.1056/nejmx090022, PMID 19494218"]
    alone = deduplicate([embase, medline]).works[0]
    assert alone.notices == ["Erratum: New England Journal of Medicine 2009;360(23):2487-2487"]


def test_an_erratum_the_article_does_not_name_stays_apart() -> None:
    article = Work(title=ECULIZUMAB, authors=AUTHORS, pages="542-544", issue="5", **NEJM)
    noted = article.model_copy(update={
        "title": f"{ECULIZUMAB}.[Erratum appears in N Engl J Med. 2009 Jun 4;360(23):2487]"})
    labelled = Work(title=f"Correction to: {ECULIZUMAB}", authors=AUTHORS, pages="2487",
                    issue="23", **NEJM)
    # labelled and by the article's authors, but the article's record does not name it
    assert deduplicate([article, labelled]).duplicates_removed == 0
    # named at page 2487, but this correction is printed elsewhere, or in another journal
    elsewhere = labelled.model_copy(update={"pages": "1190", "issue": "12"})
    other_journal = labelled.model_copy(update={"venue": "The Lancet"})
    for notice in (elsewhere, other_journal):
        assert deduplicate([noted, notice]).duplicates_removed == 0
    # a retraction or a comment is never attached, whatever the article's record says
    for title in (f"Retraction: {ECULIZUMAB}", f"Comment on: {ECULIZUMAB}"):
        retraction = labelled.model_copy(update={"title": title})
        assert deduplicate([noted, retraction]).duplicates_removed == 0
    assert deduplicate([noted, labelled]).groups == [[0, 1]]


LETTER = "Streptococcal pneumonia followed by atypical haemolytic uraemic syndrome in a child"
PEDIATR_NEPHROL = {"year": 2004, "venue": "Pediatric Nephrology", "volume": "19", "issue": "8"}


def test_a_reply_joins_the_letter_record_that_covers_it() -> None:
    letter_authors, reply_authors = ["Yilmaz, B.", "Kaya, N."], ["Shepard, A. B.", "Baliga, R."]
    exchange = Work(title=f"{LETTER} (multiple letters)", authors=letter_authors + reply_authors,
                    pages="943-945", sources=["embase"], **PEDIATR_NEPHROL)
    letter = Work(title=LETTER, authors=letter_authors, pages="943-944", sources=["pubmed"],
                  **PEDIATR_NEPHROL)
    reply = Work(title=f"{LETTER} - Reply", authors=reply_authors, pages="945",
                 sources=["pubmed"], **PEDIATR_NEPHROL)
    result = deduplicate([reply, letter, exchange])
    assert result.groups == [[0, 1, 2]]
    assert result.works[0].title == LETTER
    assert result.works[0].merged_by == ["fuzzy_title", "reply"]
    assert result.works[0].notices == ["Reply: Pediatric Nephrology 2004;19(8):945"]
    [merge] = [merge for merge in result.merges if merge.rule == "reply"]
    assert merge.merged_id == reply.id and "lists the reply's authors (2)" in merge.detail
    # indexed on their own, a letter and its reply are two publications by two sets of authors
    assert deduplicate([letter, reply]).duplicates_removed == 0
    # the article the letter discusses, earlier in the volume by the reply's authors, stays apart
    article = Work(title=LETTER, authors=reply_authors, pages="402-406",
                   **{**PEDIATR_NEPHROL, "issue": "4"})
    assert deduplicate([article, exchange, reply]).groups == [[0], [1, 2]]


def test_two_letters_with_one_generic_title_in_two_journals_stay_apart() -> None:
    title = "Eculizumab in atypical haemolytic uraemic syndrome"
    french = ["Moreau, P.", "Laurent, D."]
    records = [
        Work(title=title, authors=french, year=2011, venue="Pediatric Nephrology", volume="26",
             pages="511-512"),
        Work(title=title, authors=["Suzuki, K.", "Tanaka, H."], year=2011,
             venue="Kidney International", volume="80", pages="511-512"),
        # a reply beside the second letter, by other authors than that letter's record names
        Work(title=f"{title} - Reply", authors=french, year=2011, venue="Kidney International",
             volume="80", pages="512"),
    ]
    assert deduplicate(records).duplicates_removed == 0


ASPHYXIA = "Perinatal asphyxia may present with features of neonatal haemolytic uraemic syndrome"


def test_a_meeting_abstract_earlier_in_the_volume_joins_the_paper() -> None:
    common = {"year": 2007, "venue": "Pediatric Nephrology", "volume": "22"}
    authors = ["Biran, V.", "Fau, S.", "Jammal, T.", "Ulinski, T."]
    abstract = Work(title=ASPHYXIA, authors=authors, pages="1514", issue="9", **common)
    paper = Work(title=ASPHYXIA.lower(), authors=["Biran, V.", "Fau, S.", "Jamal, T.",
                 "Renolleau, S.", "Ulinski, T."], pages="2129-2132", issue="12", **common)
    result = deduplicate([abstract, paper])
    assert result.groups == [[0, 1]]
    assert result.works[0].pages == "2129-2132"
    assert [merge.rule for merge in result.merges] == ["meeting_abstract"]
    assert result.works[0].notices == ["Meeting abstract: Pediatric Nephrology 2007;22(9):1514"]
    later = abstract.model_copy(update={"pages": "2630", "issue": "13"})
    other_volume = abstract.model_copy(update={"volume": "21"})
    one_author = abstract.model_copy(update={"authors": ["Biran, V.", "Moreno, P."]})
    for item in (later, other_volume, one_author):
        assert deduplicate([item, paper]).duplicates_removed == 0


def test_two_single_pages_of_one_meeting_abstract_do_not_conflict() -> None:
    common = {"title": "Renal function under eculizumab after a third kidney transplantation "
              "for atypical HUS", "authors": ["Davin, J. C.", "Bouts, A. H."], "year": 2011,
              "volume": "15"}
    embase = Work(**common, pages="22", venue="Pediatric Transplantation.Conference: 6th "
                  "Congress of the International Pediatric Transplant Association")
    wos = Work(**common, pages="52", venue="Pediatric Transplantation")
    assert deduplicate([embase, wos]).duplicates_removed == 1
    unlabelled = embase.model_copy(update={"venue": "Pediatric Transplantation"})
    assert deduplicate([unlabelled, wos]).duplicates_removed == 0


def test_a_title_given_in_two_languages_matches_on_either() -> None:
    english = "Non-invasive ventilation in acute exacerbations of COPD: a randomised trial"
    spanish = ("Ventilación no invasiva en las exacerbaciones agudas de la EPOC: ensayo "
               "aleatorizado")
    common = {"authors": ["Ruiz, C.", "Soler, N."], "year": 2011, "venue": "Arch Bronconeumol"}
    american = english.replace("randomised", "randomized")
    records = [Work(title=f"[{english}] {spanish}", **common), Work(title=american, **common),
               Work(title=f"{spanish}; {american}", **common)]
    assert title_variants(records[0].title) == (
        normalize_title(records[0].title), normalize_title(english), normalize_title(spanish))
    result = deduplicate(records)
    assert result.groups == [[0, 1, 2]]
    assert {m.rule for m in result.merges} == {"fuzzy_title"}


def test_format_labels_and_correction_marks_are_not_part_of_a_title() -> None:
    assert normalize_title("Query optimization at the crossroads (Panel)") == (
        "query optimization at the crossroads")
    assert normalize_title("Objects and SQL (panel session): strange relations?") == (
        "objects and sql strange relations")
    assert normalize_title("Impact of database research on products (Panel Summary)") == (
        "impact of database research on products")
    assert normalize_title("Tutorial: Designing a highly available DBMS") == (
        "designing a highly available dbms")
    assert normalize_title("Gemcitabine plus cisplatin or carboplatin [corrected] in NSCLC") == (
        "gemcitabine plus cisplatin or carboplatin in nsclc")
    assert normalize_title('"[Pleural drainage in children]"') == "pleural drainage in children"
    assert normalize_title("Tutorial on storage technology: RAID and beyond") == (
        "storage technology raid and beyond")
    assert normalize_title("Objects and SQL: Strange Relations? Panel") == (
        "objects and sql strange relations")
    assert normalize_title("Information Visualization, Guest Editors' Foreword") == (
        normalize_title("Foreword: Information visualization")) == "information visualization"
    # a label only where something else names the work
    assert normalize_title("Guest editor's introduction") == "guest editor s introduction"
    assert normalize_title("Design of a rooftop solar panel") == "design of a rooftop solar panel"
    # a note cut short by a length limit
    assert normalize_title("Pleural drainage in children (The Journal of Pediatr") == (
        "pleural drainage in children")


def test_names_with_letters_the_database_could_not_encode() -> None:
    assert author_key("G?k, M") == "g?k"
    assert author_key("Kjetil Nørvåg") == "norvag" and author_key("Łukasz Weiß") == "weiss"
    assert names_agree("p?ss", "poess") and names_agree("g?k", "gok")
    assert names_agree("n?rv?g", "norvag")
    assert not names_agree("g?k", "gerke")
    protocol = {"title": "The demarcation protocol for distributed constraints", "year": 1994,
                "venue": "VLDB Journal"}
    compound = [Work(**protocol, authors=["Daniel Barbar?"], sources=["dblp"]),
                Work(**protocol, authors=["Daniel Barbar&#225;-Mill&#225;"], sources=["acm"])]
    assert deduplicate(compound).duplicates_removed == 1
    common = {"title": "New benchmarks for decision support and web commerce", "year": 2000,
              "venue": "SIGMOD Record"}
    records = [Work(**common, authors=["Meikel P?ss", "Chris Floyd"], sources=["dblp"]),
               Work(**common, authors=["Meikel Pöss", "Chris Floyd"], sources=["acm"])]
    assert deduplicate(records).duplicates_removed == 1


def test_family_names_keep_their_particles_in_every_form() -> None:
    assert author_key("de Cordoba SR") == author_key("de Cordoba, S. R.") == "decordoba"
    assert author_key("van der Berg JA") == author_key("van der Berg, J. A.") == "vanderberg"
    assert author_key("Smith JA") == author_key("J. A. Smith") == "smith"
    common = {"title": "Factor H polymorphisms in dense deposit disease", "year": 2011,
              "venue": "Mol Immunol"}
    records = [Work(**common, authors=["de Cordoba, S. R.", "Harris, C. L."]),
               Work(**common, authors=["de Cordoba SR"])]
    assert deduplicate(records).duplicates_removed == 1


def test_two_shared_authors_stand_for_a_mangled_first_author() -> None:
    common = {"title": "Human papillomavirus viral load and the risk of cervical neoplasia",
              "year": 2008, "venue": "Journal of Infectious Diseases"}
    records = [Work(**common, authors=["Xu, L F", "Kiviat, N B", "Galloway, D A"]),
               Work(**common, authors=["Liang, F X", "Kiviat, N B", "Galloway, D A"]),
               Work(**common, authors=["Liang, F X", "Moreno, P"])]
    assert deduplicate(records).groups == [[0, 1, 2]]
    assert deduplicate([records[0], records[2]]).duplicates_removed == 0


def test_a_shared_identifier_everything_else_contradicts_is_a_data_error() -> None:
    doi = "10.17705/1CAIS.04204"
    wrong = Work(title="Understanding information privacy assimilation in IT organizations",
                 authors=["Attwood, V. S."], year=2018, doi=doi)
    right = Work(title="A longitudinal analysis of major misperceptions of information systems",
                 authors=["Annan, H."], year=2019, doi=doi)
    again = Work(title="A longitudinal analysis of major misperceptions of IS", year=2019,
                 authors=["Annan, Hala"], doi=doi)
    assert deduplicate([wrong, right, again]).groups == [[0], [1, 2]]


def test_pages_and_volumes_as_databases_write_them() -> None:
    assert parse_pages("23-35") == Pages("", 23, 35)
    assert parse_pages("2243-5; author reply 2243-5") == Pages("", 2243, 2245)
    assert parse_pages("c37-c42") == Pages("c", 37, 42)
    assert parse_pages("S33-38") == Pages("s", 33, 38)
    assert parse_pages("e43268") == Pages("e", 43268, None)
    assert parse_pages("100A-101A") == Pages("", 100, 101)
    assert parse_pages("01-Jun") is None
    assert parse_pages("2297-2108") is None
    assert parse_pages(None) is None
    assert parse_pages("pp. 123-130") == parse_pages("Pages 123-130") == Pages("", 123, 130)
    assert parse_pages("p. 45") == Pages("", 45, None)
    assert parse_pages("P45") == Pages("p", 45, None)  # a poster's number, not a page label
    assert parse_pages("1223\u20139") == Pages("", 1223, 1229)
    assert normalize_volume("24 Suppl 3") == "24"
    assert normalize_volume("31A") == "31a"
    assert normalize_volume("35 ( Pt 1)") == "35"
    assert normalize_volume("") is None


def test_titles_differing_only_in_spacing_are_one_work() -> None:
    common = {"authors": ["Eisenberg, A.", "Melton, J."], "year": 1999, "venue": "SIGMOD Record"}
    records = [Work(title="SQL:1999, formerly known as SQL 3", **common),
               Work(title="SQL: 1999, formerly known as SQL3", **common),
               Work(title="SQL: 1999, formerly known as SQL4", **common)]
    assert deduplicate(records).groups == [[0, 1], [2]]


CROUP = "Humidified air for croup in children under six"
CDSR = "Cochrane Database of Systematic Reviews"


def cochrane(doi: str | None, year: int, **fields: object) -> Work:
    fields.setdefault("authors", ["Okonkwo, A.", "Lindgren, S."])
    fields.setdefault("venue", CDSR)
    fields.setdefault("title", CROUP)
    return Work(doi=doi, year=year, **fields)


def test_versions_of_a_cochrane_review_are_one_review_cited_at_its_newest() -> None:
    first = cochrane("10.1002/14651858.CD012345", 2006, pmid="16000001", sources=["pubmed"])
    newest = cochrane("10.1002/14651858.CD012345.pub3", 2011, sources=["openalex"],
                      abstract="The updated review.")
    second = cochrane("https://doi.org/10.1002/14651858.cd012345.pub2", 2008, pmid="18000002",
                      pages="CD012345", abstract="The first update.", sources=["pubmed"])
    newest_in_pubmed = newest.model_copy(update={"pmid": "21000003", "sources": ["pubmed"]})
    result = deduplicate([first, newest, second, newest_in_pubmed])
    assert result.groups == [[0, 1, 2, 3]]
    [review] = result.works
    # the newest version's fields and identifiers only: not the PMID of an earlier version
    assert (review.doi, review.pmid, review.year, review.abstract) == (
        "10.1002/14651858.cd012345.pub3", "21000003", 2011, "The updated review.")
    assert review.sources == ["openalex", "pubmed"]
    assert review.merged_by == ["doi", "review_version"]
    assert review.notices == []
    earlier = {merge.merged_id: merge for merge in result.merges
               if merge.rule == "review_version"}
    assert set(earlier) == {first.id, second.id}
    assert earlier[second.id].identifiers == ["doi:10.1002/14651858.cd012345.pub2",
                                              "pmid:18000002"]
    assert {merge.kept_id for merge in result.merges} == {newest.id}
    assert earlier[first.id].detail == (
        "Cochrane review CD012345: version 1 (2006) updated by version 3 (2011)")
    # the newest version is kept whatever the order the sources gave the records in
    assert deduplicate([newest, second, first]).works[0].doi == newest.doi


def test_cochrane_versions_without_doi_are_told_apart_by_their_year() -> None:
    old = cochrane(None, 2008, pages="CD012345", sources=["embase"])
    new = cochrane(None, 2012, pages="Cd012345", volume="6", sources=["medline"],
                   title=f"{CROUP}: an update")
    result = deduplicate([new, old])
    assert result.groups == [[0, 1]] and result.works[0].year == 2012
    assert result.merges[0].detail == "Cochrane review CD012345: 2008 updated by 2012"
    # the same year: which version each is cannot be told
    retitled = new.model_copy(update={"year": 2008, "title": "Mist tents for childhood croup"})
    assert deduplicate([old, retitled]).duplicates_removed == 0
    assert deduplicate([old, retitled.model_copy(update={"year": 2012})]).duplicates_removed == 1


def test_what_is_not_two_versions_of_one_cochrane_review_stays_apart() -> None:
    pub2 = cochrane("10.1002/14651858.CD012345.pub2", 2008)
    pub3 = cochrane("10.1002/14651858.CD012345.pub3", 2011)
    unrelated = [
        cochrane("10.1002/14651858.CD054321.pub3", 2011),  # another review
        # the review's DOI pasted into a record with another title and first author
        cochrane("10.1002/14651858.CD012345.pub3", 2011, title="Zinc for the common cold",
                 authors=["Haddad, R."]),
        # DOI and year disagree on which version is the newer
        cochrane("10.1002/14651858.CD012345.pub3", 2005),
        # the same numbering under other prefixes, or an article number outside the CDSR
        cochrane("10.1002/14651858.MR000012.pub3", 2011),
        cochrane("10.1234/journal.cd012345.pub3", 2011),
        cochrane(None, 2011, pages="CD012345", venue="Journal of Paediatrics"),
    ]
    assert deduplicate([pub2, pub3]).duplicates_removed == 1
    for other in unrelated:
        assert deduplicate([pub2, other]).duplicates_removed == 0, other


def test_cochrane_review_numbers_and_versions() -> None:
    assert cochrane_review(cochrane("10.1002/14651858.CD004123.pub3", 2010)) == (
        ReviewVersion("cd004123", 3))
    assert cochrane_review(cochrane("10.1002/14651858.CD004123", 2004)) == (
        ReviewVersion("cd004123", 1))
    assert cochrane_review(cochrane(
        "https://www.cochranelibrary.com/cdsr/doi/10.1002/14651858.CD004123.pub2/full", 2007)) == (
        ReviewVersion("cd004123", 2))
    assert cochrane_review(cochrane(None, 2007, pages="CD004123")) == (
        ReviewVersion("cd004123", None))
    for doi in ("10.1002/14651858.CD004123.pub2.x", "10.1002/cncr.20004", None):
        assert cochrane_review(cochrane(doi, 2007)) is None, doi


def test_a_record_without_year_or_authors_joins_at_the_same_volume_and_first_page() -> None:
    title = "Thrombopoietin receptor agonists in refractory immune thrombocytopenia: a cohort"
    printed = Work(title=title, authors=["Ferrand, C.", "Oduya, B."], year=2016,
                   venue="Blood Transfusion", volume="14", pages="233-240")
    yearless = printed.model_copy(update={"year": None, "venue": "Blood Transfus",
                                          "pages": "233-40"})
    anonymous = printed.model_copy(update={"authors": []})
    assert deduplicate([printed, yearless]).duplicates_removed == 1
    assert deduplicate([printed, anonymous]).duplicates_removed == 1
    assert deduplicate([anonymous, yearless]).duplicates_removed == 1
    # without the place, an unknown year or author list is no evidence at all
    for missing in (yearless, anonymous):
        unplaced = missing.model_copy(update={"volume": None, "pages": None})
        assert deduplicate([printed, unplaced]).duplicates_removed == 0
    # another volume is another year's article, and another first page another item
    next_volume = yearless.model_copy(update={"volume": "15"})
    assert deduplicate([printed, next_volume]).duplicates_removed == 0
    later_page = anonymous.model_copy(update={"pages": "301-302"})
    assert deduplicate([printed, later_page]).duplicates_removed == 0
    # what a database writes for no author is no name: it matches no other 'Anonymous'
    for placeholder in ("Anonymous", "[No authors listed]", "et al."):
        assert author_key(placeholder) is None
    unsigned = printed.model_copy(update={"authors": ["Anonymous"], "volume": None,
                                          "pages": None})
    assert deduplicate([unsigned, unsigned.model_copy(update={"venue": "Blood Transfus"})]
                       ).duplicates_removed == 0
    assert deduplicate([printed, printed.model_copy(update={"authors": ["[No authors listed]"]})]
                       ).duplicates_removed == 1


def test_greek_letters_markup_and_dashes_are_written_one_way() -> None:
    # MEDLINE spells a Greek letter out, a publisher keeps it, another database drops it
    assert normalize_title("TNF-α in sepsis") == normalize_title("TNF-alpha in sepsis")
    assert normalize_title("IL-1β and αvβ3") == "il 1beta and alphavbeta3"
    assert normalize_title("Doses in µg") == "doses in microg"
    assert "the p operator of streams" in title_variants("The ρ operator of streams")
    assert normalize_title("Doses in ug") in title_variants("Doses in µg")
    # superscripts join their word; entities escaped twice are still entities
    assert normalize_title("H<sub>2</sub>O exchange in CD4<sup>+</sup> cells") == (
        "h2o exchange in cd4 cells")
    assert normalize_title("Hodgkin&amp;#8217;s lymphoma") == normalize_title("Hodgkin's lymphoma")
    # an Embase citation with typographic dashes is still an erratum's label
    erratum = "Rituximab in cold agglutinin disease (Blood (2004) 103 (2925\u20102928))"
    assert notice_kind(erratum) == "erratum"
    assert normalize_title(erratum) == "rituximab in cold agglutinin disease"
    common = {"authors": ["Okafor, N.", "Brandt, L."], "year": 2019, "venue": "Cytokine"}
    short = [Work(title="TNF-α in neonatal sepsis", **common),
             Work(title="TNF-alpha in neonatal sepsis", **common),
             Work(title="TNF-\u03b2 in neonatal sepsis", **common)]
    # alpha and beta are two cytokines, not a typo
    assert deduplicate(short).groups == [[0, 1], [2]]
    hepatitis = {"authors": ["Mbeki, T.", "Lund, S."], "year": 2012, "venue": "Vaccine"}
    vaccines = [Work(title="Hepatitis A vaccine uptake among travellers to endemic regions",
                     **hepatitis),
                Work(title="Hepatitis B vaccine uptake among travellers to endemic regions",
                     **hepatitis)]
    assert deduplicate(vaccines).duplicates_removed == 0


def test_abbreviations_and_roman_numerals_are_read_one_way() -> None:
    assert normalize_title("Surgery vs. radiotherapy in stage IIIA") == normalize_title(
        "Surgery versus radiotherapy in stage 3A")
    assert normalize_title("Pregnancy & CIN II") == "pregnancy and cin 2"
    # only after a word a number follows: 'IV iron' stays intravenous, 'Factor V' a factor
    assert normalize_title("IV iron in factor V deficiency") == "iv iron in factor v deficiency"
    common = {"authors": ["Lindqvist, E."], "year": 2018, "venue": "Lung Cancer"}
    records = [Work(title="Surgery vs radiotherapy in stage IIIA lung cancer", **common),
               Work(title="Surgery versus radiotherapy in stage 3A lung cancer", **common),
               Work(title="Surgery versus radiotherapy in stage IIIB lung cancer", **common),
               Work(title="Surgery versus radiotherapy in stage 3B lung cancer: Part 2", **common)]
    # IIIA and IIIB are two stages; a part 2 is another paper
    assert deduplicate(records).groups == [[0, 1], [2], [3]]


def test_a_part_of_a_series_is_another_paper() -> None:
    common = {"authors": ["Ng, P."], "year": 2015, "venue": "Pediatric Pulmonology"}
    title = "Home oxygen therapy for children with bronchopulmonary dysplasia"
    records = [Work(title=title, **common),
               Work(title=f"{title}: Part II", **common),
               Work(title=f"{title}. Part 2", **common),
               Work(title=f"{title}, part of a national survey of practice", **common)]
    assert deduplicate(records).groups == [[0, 3], [1, 2]]


def test_a_retracted_article_joins_its_unlabelled_records_and_flags_the_work() -> None:
    """'RETRACTED: X' is the article X as its publisher relabelled it; 'Retraction: X' is the
    notice. Kept apart, the unlabelled record of X would be cited without the flag."""
    title = "Ravulizumab every eight weeks in paroxysmal nocturnal haemoglobinuria: a cohort"
    common = {"authors": ["Haugen, K.", "Lind, P."], "year": 2021, "venue": "Blood"}
    records = [Work(title=title, sources=["pubmed"], **common),
               Work(title=f"RETRACTED: {title}", sources=["openalex"], **common),
               Work(title=f"Retraction: {title}", sources=["crossref"], **common),
               Work(title=f"Retraction of: {title}", sources=["openalex"], **common)]
    result = deduplicate(records)
    assert result.groups == [[0, 1], [2, 3]]
    assert [work.is_retracted for work in result.works] == [True, False]
    assert notice_kind(f"[Retracted] {title}") is None
    assert notice_kind(f"Retraction of: {title}") == "retraction"
