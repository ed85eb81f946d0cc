"""JATS XML (PubMed Central) into sections, paragraphs, captions and tables.

Reads every shape PMC hands out: the OA package's ``.nxml`` (root ``<article>``), E-utilities
``efetch db=pmc`` (``<pmc-articleset>``), an OAI-PMH ``GetRecord`` (a namespaced JATS 1.3 article
inside ``<OAI-PMH>``) and Europe PMC's ``fullTextXML``. Namespaces are dropped, so the same code
reads JATS 1.0-1.3 and NLM 3.0.

The parser never resolves entities, loads a DTD or touches the network (``resolve_entities``,
``load_dtd`` and ``no_network``), so a hostile file cannot read local files or call out; an
undefined entity is left out rather than failing the whole article.

Sections keep their title path ("Results > Subgroups"); a section without a title takes its
``sec-type`` or its parent's path. Paragraphs, figure captions and table captions become blocks;
each table row becomes a block that reads as a sentence ("Table 2, Age (years): Erlotinib 62;
Placebo 61.") and the table itself is kept as rows of cells. Reference lists, acknowledgements,
declarations, footnotes and the list of supplementary files are left out: they are not evidence.
A formula is read as a line of text where it stands (:func:`formula_text`), a display formula
into the sentence it completes, and a list inside a sentence keeps its items apart.
"""

from __future__ import annotations

import re

from lxml import etree

from scholargraph.errors import InputError
from scholargraph.fulltext.model import FullTextDocument, Table, TextBlock
from scholargraph.sources.markup import EXPONENT_MARK, superscript

BODY_SECTION = "Main text"
"""Section of paragraphs that sit directly in ``<body>``, outside any ``<sec>``."""
FLOATS = ("fig", "fig-group", "table-wrap", "table-wrap-group")
CONTAINERS = ("list", "list-item", "boxed-text", "disp-quote", "statement", "def-list")
"""Elements whose paragraphs belong to the section they sit in."""
LEFT_OUT = frozenset({"ref-list", "ack", "fn-group", "ref", "fn", "glossary", "notes",
                      "table", "alternatives", "object-id", "graphic", "media",
                      "supplementary-material", "tex-math", "permissions"})
LISTINGS = ("code", "preformat")
"""A program's text (``<code>``, JATS 1.1 on) and preformatted text (``<preformat>``: a
listing, a command session, a sequence alignment), set apart from the prose: never a sentence
of the paragraph around it. A short one-line ``<code>`` inside a sentence (:data:`INLINE_CODE`)
is a word of the sentence ('the <code>glm</code> function')."""
LISTING_BREAK = "\x00"
"""Where a listing stood in a paragraph's text, for :func:`_read_paragraph` to end the
paragraph there (a space in any other text)."""
INLINE_CODE = 40
"""Characters a one-line ``<code>`` or ``<preformat>`` has at most to be read as a word of its
sentence; a longer one, or one of several lines, is a listing."""
FORMULAS = ("disp-formula", "disp-formula-group")
"""Display formulas: read as a line of text (:func:`formula_text`) where they stand, so a
sentence stated around one ('... estimated as <formula> where FS is ...') keeps its meaning."""
SEC_TYPE_TITLES = {"intro": "Introduction", "methods": "Methods", "materials|methods":
                   "Materials and Methods", "results": "Results", "discussion": "Discussion",
                   "conclusions": "Conclusions", "supplementary-material": "Supplementary"}



def _parser() -> etree.XMLParser:
    """A fresh parser per document (a recovering parser keeps state between documents)."""
    return etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True,
                           huge_tree=False, remove_comments=True, recover=True)


def parse_jats(data: bytes) -> FullTextDocument:
    """The article in ``data`` (any of the shapes above) as blocks and tables.

    Raises :class:`InputError` when ``data`` holds no JATS ``<article>``.
    """
    article = _article(data)
    meta = article.find("front/article-meta")
    document = FullTextDocument(format="jats")
    if meta is not None:
        _read_meta(meta, document, article)
    body = article.find("body")
    if body is None:
        return document  # front matter only: a scanned article, or one whose text is withheld
    _read_container(body, [], document)
    for back_part in article.findall("back/sec") + article.findall("back/app-group/app") \
            + article.findall("back/app"):
        _read_section(back_part, [], document)
    floats = article.find("floats-group")
    if floats is not None:
        _read_container(floats, [], document)
    return document


def split_articles(data: bytes) -> dict[str, bytes]:
    """Each JATS article of an efetch answer of many (``<pmc-articleset>``), by its PMCID's
    digits, as a document of its own for :func:`parse_jats`. Raises :class:`InputError` when
    ``data`` is not XML."""
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        raise InputError(f"not readable XML ({exc})") from None
    if root is None:
        return {}
    _drop_namespaces(root)
    found: dict[str, bytes] = {}
    for article in ([root] if root.tag == "article" else root.iter("article")):
        ids = {node.get("pub-id-type"): (node.text or "").strip()
               for node in article.findall("front/article-meta/article-id")}
        pmcid = (ids.get("pmc") or ids.get("pmcid") or "").upper().removeprefix("PMC")
        if pmcid:
            found.setdefault(pmcid, etree.tostring(article))
    return found


def _article(data: bytes) -> etree._Element:
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        raise InputError(f"not readable XML ({exc}); give a JATS article (.nxml or .xml)") from None
    if root is None:
        raise InputError("empty XML; give a JATS article (.nxml or .xml)")
    _drop_namespaces(root)
    article = root if root.tag == "article" else root.find(".//article")
    if article is None:
        raise InputError(f"no JATS <article> in this XML (its root is <{root.tag}>)")
    return article


def _drop_namespaces(root: etree._Element) -> None:
    for element in root.iter():
        if isinstance(element.tag, str) and "}" in element.tag:
            element.tag = etree.QName(element).localname
    etree.cleanup_namespaces(root)


def _read_meta(meta: etree._Element, document: FullTextDocument,
               article: etree._Element) -> None:
    ids = {node.get("pub-id-type"): _clean(node.text or "") for node in meta.findall("article-id")}
    document.pmcid = ids.get("pmc") or ids.get("pmcid")
    if document.pmcid and not document.pmcid.upper().startswith("PMC"):
        document.pmcid = f"PMC{document.pmcid}"
    document.pmid = ids.get("pmid")
    document.doi = ids.get("doi")
    title = meta.find("title-group/article-title")
    document.title = _text(title) or None if title is not None else None
    abstract = next((node for node in meta.findall("abstract") if not node.get("abstract-type")),
                    meta.find("abstract"))
    if abstract is not None:
        document.abstract = _abstract_text(abstract) or None
    document.authors = [name for name in map(_contributor, meta.iterfind(
        "contrib-group/contrib[@contrib-type='author']")) if name]
    document.year = _year(meta)
    journal = article.find("front/journal-meta/journal-title-group/journal-title")
    if journal is None:
        journal = article.find("front/journal-meta/journal-title")
    document.venue = _text(journal) or None if journal is not None else None
    document.licence = _licence(meta)


def _abstract_text(abstract: etree._Element) -> str:
    """An abstract's paragraphs; a structured one's each after its section's title
    ('Background: ... Methods: ...'), as PubMed writes its labels, so the parts keep their
    names (its title dropped, the paragraphs ran into one another: 'Background' was lost)."""
    if abstract.find("sec") is None:
        return " ".join(_text(p) for p in abstract.iter("p")) or _text(abstract)
    parts = []
    for child in abstract:
        if child.tag == "p":
            parts.append(_text(child))
        elif child.tag == "sec":
            title = _text(child.find("title")).rstrip(":").strip()
            body = " ".join(_text(p) for p in child.iter("p"))
            parts.append(f"{title}: {body}" if title and body else body)
    return " ".join(part for part in parts if part)


def _contributor(contrib: etree._Element) -> str | None:
    """An author's name: ``<name>``, else the western one of ``<name-alternatives>`` (the
    first when none says so), else ``<string-name>``, else a group's ``<collab-name>`` (JATS
    1.3) or ``<collab>``."""
    name = contrib.find("name")
    if name is None:
        alternatives = contrib.findall("name-alternatives/name")
        name = next((n for n in alternatives if n.get("name-style") == "western"),
                    alternatives[0] if alternatives else None)
    if name is not None:
        return _author(name) or None
    other = next((found for found in map(contrib.find, ("string-name", ".//collab-name",
                                                        "collab")) if found is not None), None)
    return (_clean(_own_text(other)) or None) if other is not None else None


GROUP_PARTS = frozenset({"contrib-group", "contrib", "aff", "xref", "email", "uri", "ext-link",
                         "address", "fn", "role"})
"""What a group author's ``<collab>`` holds beside its name: its members (eLife lists them in
a ``<contrib-group>`` inside, with their affiliations, e-mails and ORCIDs), footnote links."""


def _own_text(element: etree._Element) -> str:
    """An element's words without those of :data:`GROUP_PARTS` inside it: a group author's
    name alone, where the whole text ran its members, their institutions and e-mails into one
    'author'."""
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str) and child.tag not in GROUP_PARTS:
            parts.append(_own_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _author(name: etree._Element) -> str:
    surname = _clean(name.findtext("surname") or "")
    given = _clean(name.findtext("given-names") or "")
    return f"{surname}, {given}" if given else surname


def _year(meta: etree._Element) -> int | None:
    for date in meta.findall("pub-date"):
        year = (date.findtext("year") or "").strip()
        if year.isdigit():
            return int(year)
    return None


def _licence(meta: etree._Element) -> str | None:
    """The licence URL (``ali:license_ref``, ``xlink:href``) or, failing that, its statement."""
    licence = meta.find("permissions/license")
    if licence is None:
        return None
    ref = licence.find("license_ref")
    if ref is not None and (ref.text or "").strip():
        return ref.text.strip()
    for name, value in licence.attrib.items():
        if name.endswith("href") and value.strip():
            return value.strip()
    statement = _text(licence)
    return statement[:300] or licence.get("license-type") or None


def _read_container(element: etree._Element, path: list[str],
                    document: FullTextDocument) -> None:
    """Blocks of the children of a ``<body>``, ``<sec>`` or ``<floats-group>``, in order."""
    section = " > ".join(path) or BODY_SECTION
    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "sec":
            _read_section(child, path, document)
        elif tag == "p":
            _read_paragraph(child, section, document)
        elif tag in FORMULAS:
            _read_formula(child, section, document)
        elif tag in FLOATS:
            _read_float(child, section, document)
        elif tag == "boxed-text":
            _read_container(child, [*path, title] if (title := _box_title(child)) else path,
                            document)
        elif tag in CONTAINERS:
            _read_container(child, path, document)


def _box_title(box: etree._Element) -> str:
    """A box's name ('Box 1 Key messages', from its label and caption title): a box is set
    apart from the running text (key points, a case, a glossary), and its sentences are cited
    as the box's, not as the section's own argument."""
    label = _clean(box.findtext("label") or "")
    title_node = box.find("caption/title")
    if title_node is None:
        title_node = box.find("title")
    title = _text(title_node) if title_node is not None else ""
    return f"{label} {title}".strip() if label and not title.startswith(label) else title or label


DECLARATIONS = re.compile(
    r"^(?:\d+\.?\s*)?(?:acknowledge?ments?|funding(?: sources?| information)?|(?:financial )?"
    r"disclosures?|declarations?|competing interests?|conflicts? of interests?|author'?s'? "
    r"contributions?|contributors|pre-publication history|abbreviations|consent for "
    r"publication|ethics approval.*|(?:availability of data.*|data availability.*))$",
    re.IGNORECASE)
"""Titles of the sections of declarations a journal (BMC, Annals of Oncology) places in the body:
who did what, who paid, who has competing interests, the peer-review history. They are not
evidence on the question, and the PDF reader leaves them out too (``pdf.BACK_MATTER``)."""
DECLARATION_TYPES = frozenset({"COI-statement", "author-contributions", "funding",
                               "ethics-statement", "data-availability", "acknowledgment",
                               "acknowledgement"})


def _is_declaration(sec: etree._Element, title: str) -> bool:
    """Whether a section is a declaration (:data:`DECLARATIONS`), by its title or sec-type."""
    return bool(DECLARATIONS.match(" ".join(title.replace("’", "'").split()))) \
        or sec.get("sec-type", "") in DECLARATION_TYPES


SUPPLEMENTARY = re.compile(
    r"^(?:\d+\.?\s*)?(?:supplementary|supplemental|supporting|additional)\s+(?:materials?|"
    r"information|data|files?)$", re.IGNORECASE)
"""Titles of a section listing an article's supplementary files (PLoS 'Supporting
information', ASM 'Supplemental material', OUP 'Supplementary Material'; ``sec-type``
'supplementary-material'). It holds file names, 'Click here for additional data file.' and the
publisher's notes on the files ('ASM does not own the copyrights to Supplemental Material...'),
which read as the last paragraphs of the paper: of the five recorded PMC articles with such a
section, two gave it paragraph blocks (three in all, none of them evidence)."""


def _is_supplementary(sec: etree._Element, title: str) -> bool:
    return sec.get("sec-type", "") == "supplementary-material" \
        or bool(SUPPLEMENTARY.match(" ".join(title.split())))


def _read_section(sec: etree._Element, path: list[str], document: FullTextDocument) -> None:
    title_node = sec.find("title")
    title = _text(title_node) if title_node is not None else ""
    if _is_declaration(sec, title) or _is_supplementary(sec, title):
        return
    label = _clean(sec.findtext("label") or "")
    if not title:
        title = SEC_TYPE_TITLES.get(sec.get("sec-type", ""), "")
    if title and label and not title.startswith(label):
        title = f"{label} {title}"
    _read_container(sec, [*path, title] if title else path, document)


SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*$")
"""A paragraph's text ending a sentence; one that does not ('... estimated as', '... given
by:') runs on into the display formula below it."""


def _open_paragraph(document: FullTextDocument, section: str) -> TextBlock | None:
    """The last block when it is a paragraph of ``section`` whose sentence a display formula
    continues (it ended with a formula, or without a sentence's end)."""
    last = document.blocks[-1] if document.blocks else None
    if last is None or last.kind != "paragraph" or last.section != section:
        return None
    return last


def _read_formula(formula: etree._Element, section: str, document: FullTextDocument) -> None:
    """A display formula between paragraphs, where the sentence around it needs it: onto the
    paragraph above when that paragraph's sentence is still open ('... estimated as'), else a
    block of its own; the paragraph below joins it when it goes on in lower case ('where FS is
    ...', :func:`_read_paragraph`). The recorded Behavioral Ecology article (PMC6398430) states
    both its estimators this way; without the formulas its Methods read '... we then calculated
    a local flock size estimate as' and 'where FSe is ...'."""
    text = formula_text(formula)
    if not text:
        return
    last = _open_paragraph(document, section)
    if last is not None and not SENTENCE_END.search(last.text):
        last.text = f"{last.text} {text}"
    elif not text.startswith(FORMULA_PLACEHOLDER):  # alone, an image's placeholder says nothing
        document.blocks.append(TextBlock(text=text, section=section))


def _read_paragraph(p: etree._Element, section: str, document: FullTextDocument) -> None:
    pieces = _paragraph_pieces(_text(p, listing_breaks=True))
    text = pieces[0] if pieces else ""
    after = p.getprevious()
    last = _open_paragraph(document, section) \
        if after is not None and after.tag in FORMULAS else None
    if text and last is not None and text[:1].islower() and not SENTENCE_END.search(last.text):
        last.text = f"{last.text} {text}"
    elif text:
        document.blocks.append(TextBlock(text=text, section=section))
    document.blocks.extend(TextBlock(text=piece, section=section) for piece in pieces[1:])
    for child in p.iter(*FLOATS):
        if child.getparent() is not None and not _inside_float(child.getparent()):
            _read_float(child, section, document)


def _paragraph_pieces(text: str) -> list[str]:
    """A paragraph's text cut where a listing stood (:data:`LISTING_BREAK`): the prose after a
    listing is a paragraph of its own ('... loaded as follows:' [listing] 'The tool then
    ...'), unless it goes on with the sentence before it in lower case ('where x is ...')."""
    pieces: list[str] = []
    for piece in (_clean(part) for part in text.split(LISTING_BREAK)):
        if not piece:
            continue
        if pieces and piece[:1].islower():
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return pieces


def _inside_float(element: etree._Element) -> bool:
    return any(ancestor.tag in FLOATS for ancestor in element.iterancestors()) \
        or element.tag in FLOATS


def _read_float(element: etree._Element, section: str, document: FullTextDocument) -> None:
    if element.tag in ("fig-group", "table-wrap-group"):
        for child in element:
            if child.tag in FLOATS:
                _read_float(child, section, document)
        return
    label = _clean(element.findtext("label") or "")
    caption_node = element.find("caption")
    caption = _text(caption_node) if caption_node is not None else ""
    if caption or label:
        text = f"{label}. {caption}" if label and caption else (caption or label)
        document.blocks.append(TextBlock(text=text, section=section, kind="caption"))
    if element.tag == "table-wrap":
        _read_table(element, label, caption, section, document)


def _read_table(wrap: etree._Element, label: str, caption: str, section: str,
                document: FullTextDocument) -> None:
    table_node = wrap.find(".//table")
    if table_node is None:
        return
    head = table_node.findall("thead/tr")
    body = table_node.findall("tbody/tr") + table_node.findall("tr")
    if not head and body and body[0].find("td") is None and body[0].find("th") is not None:
        head, body = body[:1], body[1:]
    header_rows, body_rows = _grid(head), _grid(body)
    header = _merge_header(header_rows)
    rows = [row for row in body_rows if any(cell for cell in row)]
    table = Table(label=label, caption=caption, section=section, header=header, rows=rows)
    document.tables.append(table)
    name = label or "Table"
    previous: list[str] = []
    for row in rows:
        text = table_row_sentence(name, header, row, previous)
        previous = row if row[:1] != [""] else [previous[0] if previous else "", *row[1:]]
        if text:
            document.blocks.append(TextBlock(text=text, section=f"{section} > {name}"
                                             if section != BODY_SECTION else name, kind="table"))


def _grid(rows: list[etree._Element]) -> list[list[str]]:
    """Rows of cells with ``colspan`` and ``rowspan`` spread out, so columns line up: a cell
    spanning several columns or rows is repeated in each."""
    pending: dict[int, tuple[int, str]] = {}
    grid: list[list[str]] = []
    for tr in rows:
        cells = iter(cell for cell in tr if cell.tag in ("td", "th"))
        row: list[str] = []
        column = 0
        while True:
            if column in pending:
                left, text = pending[column]
                row.append(text)
                pending = {**pending, column: (left - 1, text)} if left > 1 else {
                    key: value for key, value in pending.items() if key != column}
                column += 1
                continue
            cell = next(cells, None)
            if cell is None:
                break
            text = _text(cell)
            for _ in range(_span(cell, "colspan")):
                if _span(cell, "rowspan") > 1:
                    pending[column] = (_span(cell, "rowspan") - 1, text)
                row.append(text)
                column += 1
        grid.append(row)
    return grid


def _span(cell: etree._Element, attribute: str) -> int:
    value = cell.get(attribute, "1").strip()
    return max(1, min(int(value), 50)) if value.isdigit() else 1


def _merge_header(rows: list[list[str]]) -> list[str]:
    """Several header rows as one label per column ('Erlotinib n (%)')."""
    if not rows:
        return []
    width = max(len(row) for row in rows)
    merged = []
    for column in range(width):
        parts = [row[column] for row in rows if column < len(row) and row[column]]
        merged.append(" ".join(dict.fromkeys(parts)))
    return merged


def table_row_sentence(name: str, header: list[str], row: list[str],
                       previous: list[str] | None = None) -> str:
    """A row as a sentence: 'Table 2, Age (years): Erlotinib 62.3 ± 8.1; Placebo 61.0.'

    The row's label is its leading cells whose column has no header (the stub columns:
    'Season, Breeding Season'); a blank first cell repeats the one above it, as tables print
    a group's name once ('Performance status' over 'PS0', 'PS1'...)."""
    if not any(row):
        return ""
    stub = _stub_width(header, row)
    labels = list(row[:stub])
    if labels and not labels[0] and previous and any(row[1:]):
        labels[0] = previous[0]
    pairs = []
    for column, value in enumerate(row[stub:], start=stub):
        if value:
            head = header[column] if column < len(header) else ""
            pairs.append(f"{head} {value}" if head else value)
    label = ", ".join(cell for cell in labels if cell)
    if not pairs:
        return f"{name}: {label}."
    lead = f"{name}, {label}:" if label else f"{name}:"
    return f"{lead} {'; '.join(pairs)}."


def _stub_width(header: list[str], row: list[str]) -> int:
    """How many leading columns label the row: those without a header, at least the first,
    never all of them."""
    width = 1
    while width < len(row) - 1 and width < len(header) and not header[width]:
        width += 1
    return width


def _text(element: etree._Element | None, listing_breaks: bool = False) -> str:
    """The element's words, floats and left-out elements skipped, whitespace normalised; a
    superscript exponent marked ('10<sup>7</sup> CFU' is '10^7 CFU', not '107 CFU'), one that
    is a citation or footnote mark left out (:func:`_is_mark`); a line break a space. A
    formula, inline or displayed inside the paragraph, is read as a line of text
    (:func:`formula_text`)."""
    if element is None:
        return ""
    parts: list[str] = []
    _collect(element, parts, top=True)
    text = "".join(parts)
    return _clean(text if listing_breaks else text.replace(LISTING_BREAK, " "))


def _collect(element: etree._Element, parts: list[str], top: bool = False) -> None:
    tag = element.tag if isinstance(element.tag, str) else ""
    skip = not top and (tag in FLOATS or tag in LEFT_OUT or _is_mark(element))
    if tag == "break":
        parts.append(" ")
    if not top and tag in ("inline-formula", "math", *FORMULAS):
        skip = True
        formula = formula_text(element)
        parts.append(f" {formula} " if tag in FORMULAS else formula)
    if not top and tag in ("list", "def-list"):
        skip = True
        parts.append(f" {_list_text(element)} ")
    if not top and tag in LISTINGS and is_listing(element):
        skip = True
        parts.append(LISTING_BREAK)  # the prose on either side stays apart
    if not skip and isinstance(element.tag, str):
        start = len(parts)
        if element.text:
            parts.append(element.text)
        for child in element:
            _collect(child, parts)
            if tag in ("caption",) and child.tag == "title":
                parts.append(" ")
        if tag == "sup" and not top:
            parts[start:] = [superscript("".join(parts[:start]), "".join(parts[start:]))]
        if tag in ("td", "th", "list-item", "title", "p", "label", "term") and not top:
            parts.append(" ")
    if not top and element.tail:
        parts.append(element.tail)


def is_listing(element: etree._Element) -> bool:
    """Whether a ``<code>`` or ``<preformat>`` is a listing set apart from the prose: it holds
    a line break or is longer than :data:`INLINE_CODE`."""
    text = "".join(element.itertext()).strip()
    return "\n" in text or len(text) > INLINE_CODE


ITEM_END = re.compile(r"[;,.:!?]$")


def _list_text(element: etree._Element) -> str:
    """A list inside a paragraph as the paragraph reads it: its items one after the other,
    with '; ' between two where the item does not end with its own stop ('eligible if they
    had: an EGFR mutation; measurable disease; no prior therapy and gave consent'); the items
    ran together ('mutation measurable disease no prior therapy') and a label onto its item
    ('(i)survival')."""
    items = [_text(item) for item in element if item.tag in ("list-item", "def-item")]
    items = [item for item in items if item]
    return "".join(item + ("" if last or ITEM_END.search(item) else ";") + ("" if last else " ")
                   for last, item in ((i == len(items) - 1, item)
                                      for i, item in enumerate(items)))


NOTE_REFS = frozenset({"fn", "table-fn"})
"""Links to a footnote: their mark ('a', '*', '†') glued to a word or a number ('Footnoteda',
'62a' in a table cell) is no word of the text, and the footnote itself is left out."""


def _is_mark(element: etree._Element) -> bool:
    """A footnote mark, or a raised citation: an ``<xref>`` in or around a ``<sup>``
    ('controls<sup><xref>1</xref></sup>' read 'controls1', and after a year '2010^5'), which
    the text keeps no more than a footnote; a bracketed citation ('[<xref>2</xref>]') stays."""
    if element.tag == "xref":
        return element.get("ref-type") in NOTE_REFS or element.find("sup") is not None
    return element.tag == "sup" and element.find(".//xref") is not None


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


FORMULA_PLACEHOLDER = "[formula]"
"""What stands for a formula the file gives only as an image: the sentence around it says
that something is missing there, rather than running its two halves together."""
MATH_OPERATORS = frozenset("=+\u2212-\u00b1\u00d7\u00f7<>\u2264\u2265\u2248\u2260\u2261\u221d"
                           "\u2192\u2190\u21d2\u2208\u2217")
"""MathML operators written with a space either side ('CF = (CM_t \u2212 CM_ind)/CM_t'); others
(brackets, commas, a function's application) are written as they are."""
MATH_SKIPPED = frozenset({"annotation", "annotation-xml", "mphantom", "none", "mprescripts",
                          "maligngroup", "malignmark"})


def formula_text(formula: etree._Element) -> str:
    """A formula (``<disp-formula>``, ``<inline-formula>`` or a bare MathML ``<math>``) as one
    line of text a reader can check against the paper: its MathML linearised (:func:`_mathml`:
    'FS_e = CM_ind + (CU \u2212 CU \u2217 CF)/T'), else its TeX, else
    :data:`FORMULA_PLACEHOLDER` when only an image of it is given; a display formula's label
    ('(2)') after it; a group's formulas one after the other, with '; ' between them."""
    if formula.tag == "disp-formula-group":
        return "; ".join(text for text in map(formula_text, formula.iter("disp-formula")) if text)
    math = formula if formula.tag == "math" else next(formula.iter("math"), None)
    if math is not None:
        text = _mathml(math)
    else:
        tex = next(formula.iter("tex-math"), None)
        text = _tex(tex.text or "") if tex is not None else _formula_words(formula)
    text = _clean(text)
    if not text and any(True for _ in formula.iter("graphic", "inline-graphic")):
        text = FORMULA_PLACEHOLDER
    label = _clean(formula.findtext("label") or "") if formula.tag in FORMULAS else ""
    return f"{text} {label}".strip() if text else ""


def _formula_words(formula: etree._Element) -> str:
    """A formula written as marked-up text ('p <italic>&lt;</italic> 0.05'), without its label
    and images."""
    parts = [formula.text or ""]
    for child in formula:
        if isinstance(child.tag, str) and child.tag not in ("label", "graphic", "inline-graphic"):
            parts.append(_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _tex(source: str) -> str:
    """The formula of a ``<tex-math>``: PMC wraps it in a whole LaTeX document
    ('\\documentclass ... \\begin{document}$$x^2$$\\end{document}'); the formula is what is
    between the dollars."""
    body = re.search(r"\\begin\{document\}(.*?)\\end\{document\}", source, re.DOTALL)
    text = body.group(1) if body else source
    return text.strip().strip("$").strip()


def _mathml(element: etree._Element) -> str:
    """MathML (presentation markup) as a line of text: a sub- or superscript after '_' or '^',
    a fraction as '(a)/(b)' (brackets only around a compound part), a root as '\u221a(x)',
    fences as their brackets, table rows apart with '; '; a ``<semantics>`` by its first child
    (its annotations repeat it in other notations)."""
    tag = element.tag if isinstance(element.tag, str) else ""
    children = [child for child in element if isinstance(child.tag, str)
                and child.tag not in MATH_SKIPPED]
    if tag in MATH_SKIPPED:
        return ""
    if tag in ("mi", "mn", "mtext", "ms"):
        return _clean(element.text or "")
    if tag == "mo":
        operator = _clean(element.text or "")
        return f" {operator} " if operator in MATH_OPERATORS and _binary(element) else operator
    if tag == "mspace":
        return " "
    parts = [_mathml(child) for child in children]
    if tag == "semantics":
        return parts[0] if parts else ""
    if tag in ("msub", "msup", "msubsup", "munder", "mover", "munderover", "mmultiscripts") \
            and parts:
        marks = {"msub": "_", "munder": "_", "msup": EXPONENT_MARK, "mover": EXPONENT_MARK}
        if tag in marks and len(parts) == 2:
            return f"{parts[0]}{marks[tag]}{_group(parts[1])}"
        if len(parts) == 3 and tag in ("msubsup", "munderover"):
            return f"{parts[0]}_{_group(parts[1])}{EXPONENT_MARK}{_group(parts[2])}"
        return "".join(parts)
    if tag == "mfrac" and len(parts) == 2:
        return f"{_group(parts[0])}/{_group(parts[1])}"
    if tag == "msqrt":
        return f"\u221a{_group(''.join(parts), always=True)}"
    if tag == "mroot" and len(parts) == 2:
        return f"{_group(parts[0], always=True)}^(1/{parts[1]})"
    if tag == "mfenced":
        inner = element.get("separators", ",")[:1].join(parts) if parts else ""
        return f"{element.get('open', '(')}{inner}{element.get('close', ')')}"
    if tag == "mtable":
        return "; ".join(_clean(part) for part in parts if part.strip())
    if tag == "mtr":
        return " ".join(_clean(part) for part in parts)
    return "".join(parts)


def _binary(operator: etree._Element) -> bool:
    """Whether an operator stands between two operands ('a − b'), not before one ('−1' in
    'L^−1') nor beside another operator (a charge, '3−/4−')."""
    before, after = operator.getprevious(), operator.getnext()
    return before is not None and after is not None and before.tag != "mo" and after.tag != "mo"


def _group(text: str, always: bool = False) -> str:
    """``text`` bracketed when it is more than one symbol or number, so '(a + b)/c' does not
    read 'a + b/c'."""
    text = _clean(text)
    if always or (len(text) > 1 and not re.fullmatch(r"[\u2212+-]?[\w.]+|\(.*\)", text)):
        return f"({text})"
    return text
