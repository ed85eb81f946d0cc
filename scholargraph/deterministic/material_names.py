"""The materials a question names: formulas as written, element names and compound names.

"band gap of Si and GaAs", "GaN compared with silicon", "Is gallium arsenide a better absorber
than silicon?" each name two materials, and each is searched on its own. A formula is taken as
written (``TiO2``, ``LiFePO4``, ``Ca(OH)2``); an element name is its symbol ("silicon" is Si); a
compound name is its cations' element names and an anion word ("gallium arsenide", "lithium iron
phosphate", "titanium dioxide"), whose formula follows from the cations' common oxidation states
as pymatgen knows them: Ga3+ and As3- make GaAs, Li+ Fe2+ and PO4 3- make LiFePO4. When the
states allow more than one formula ("iron oxide": FeO or Fe2O3) the name gives its elements only.

Symbols that are also English words ("In", "As", "I", "No", a lone capital "B") name a material
only where the question reads that way: listed with another material ("GaAs and In"), after a
property ("the band gap of In"), or before a material noun ("In nanowires"). The word "lead" is
read the same way, and the gases (oxygen, nitrogen...) are never a material on their own name.

A chemical system ("the Li-Fe-O system", "Y-Ba-Cu-O") names the compounds made of exactly
those elements, and a Materials Project id ("mp-19017") one entry: each is one material of the
question, looked up as such (``chemsys``, ``material_ids``), never as its separate elements.

A kind of material ("perovskite", "lithium-ion cathode") is no compound: :func:`material_classes`
names it, so a source looked up by compound can say why it was not asked. "lithium" in
"lithium-ion" is the battery's working ion, not lithium metal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from itertools import product

from scholargraph.deterministic.text import ELEMENTS, SYMBOL_WORDS

_FORMULA = re.compile(r"^(?:[A-Z][a-z]?\d*(?:\.\d+)?)+$")
_SYMBOL = re.compile(r"([A-Z][a-z]?)")
_TOKEN = re.compile(r"(?<![\w(])[A-Z][A-Za-z0-9().]*[A-Za-z0-9)]|(?<![\w(])[A-Z](?![\w])")

ANIONS: dict[str, tuple[str, int]] = {
    "oxide": ("O", -2), "nitride": ("N", -3), "carbide": ("C", -4), "sulfide": ("S", -2),
    "sulphide": ("S", -2), "selenide": ("Se", -2), "telluride": ("Te", -2),
    "fluoride": ("F", -1), "chloride": ("Cl", -1), "bromide": ("Br", -1), "iodide": ("I", -1),
    "hydride": ("H", -1), "boride": ("B", -3), "silicide": ("Si", -4), "phosphide": ("P", -3),
    "arsenide": ("As", -3), "antimonide": ("Sb", -3), "phosphate": ("PO4", -3),
    "sulfate": ("SO4", -2), "sulphate": ("SO4", -2), "nitrate": ("NO3", -1),
    "carbonate": ("CO3", -2), "hydroxide": ("OH", -1), "titanate": ("TiO3", -2),
}
"""Anion words of compound names: the group they add and its charge."""
PREFIXES = (("mono", 1), ("mon", 1), ("di", 2), ("tri", 3), ("tetra", 4), ("tetr", 4),
            ("penta", 5), ("pent", 5), ("hexa", 6), ("hex", 6))
"""Greek counts before an anion word ("dioxide", "pentoxide")."""
GASES = frozenset(["H", "He", "N", "O", "F", "Ne", "Cl", "Ar", "Kr", "Xe", "Rn"])
"""Elements whose name alone ("oxygen vacancies") is not a material one would look up."""
NAME_WORDS = frozenset(["lead"])
"""Element names that are also common English words ("lead to")."""
SPELLINGS = {"aluminium": "Al", "caesium": "Cs", "sulphur": "S"}

PROPERTY_BEFORE = re.compile(
    r"(?:band ?gaps?|energ(?:y|ies)|hull|stability|structures?|lattice(?: \w+)?|"
    r"conductivit(?:y|ies)|density|propert(?:y|ies)|modul(?:us|i)|phases?|"
    r"elemental|pure)\s+(?:of|for|in)\s+(?:the\s+)?$", re.IGNORECASE)
LIST_LINK = re.compile(r"^\s*(?:,|,?\s*(?:and|or)|vs\.?|versus|with|than|/|"
                       r"compared (?:with|to)|(?:better|worse|more \w+|less \w+) than)\s*$",
                       re.IGNORECASE)
MATERIAL_AFTER = re.compile(r"^[\s-]*(?:metal|crystals?|films?|thin films?|nanowires?|"
                            r"nanoparticles?|alloys?|doped|doping|atoms?|substrates?|"
                            r"wafers?)\b", re.IGNORECASE)


SYSTEM = re.compile(r"(?<![\w-])[A-Z][a-z]?(?:[-\u2013][A-Z][a-z]?)+(?![\w-])")
"""Element symbols joined by hyphens or en dashes: a candidate chemical system ("Li-Fe-O")."""
SYSTEM_AFTER = re.compile(r"^\s*(?:(?:chemical|binary|ternary|quaternary)\s+)?(?:systems?|"
                          r"phase diagrams?|phases|alloys?|compounds)\b", re.IGNORECASE)
"""Words after two joined symbols that make them a chemical system ("the Ti-O system"); three
or more symbols need none. Two alone are too often something else: "I-V curves", "C-H
activation", "U-Pb dating", "He-Ne laser"."""
MIN_BARE_SYSTEM = 3
"""Joined symbols that are a chemical system without a word saying so."""
MATERIAL_ID = re.compile(r"(?<![\w-])mp-\d+(?![\w-])")
"""A Materials Project entry id as the site and the API write it ("mp-149")."""


@dataclass(frozen=True)
class NamedMaterial:
    """One material the text names: as written, the formula to search, its elements; a
    chemical system (``chemsys``, its symbols in alphabetical order as the Materials Project
    writes them) or a Materials Project id (``material_id``) instead of a formula."""

    written: str
    formula: str | None
    elements: tuple[str, ...]
    start: int
    end: int
    chemsys: str | None = None
    material_id: str | None = None

    @property
    def label(self) -> str:
        """How the search log and tables name it: the formula, else the words as written."""
        return self.formula or self.written


def is_formula(token: str) -> bool:
    """Whether ``token`` reads as a chemical formula made of real element symbols.

    A single element needs no digit (``Si``), but an all-capitals word of one-letter symbols
    without a digit (``HIV``, ``CNS``) is taken for an acronym, not a formula.
    """
    if not _FORMULA.match(token):
        return False
    symbols = _SYMBOL.findall(token)
    if not all(symbol in ELEMENTS for symbol in symbols):
        return False
    acronym = len(symbols) > 1 and token.isupper() and not any(ch.isdigit() for ch in token)
    return not acronym


def named_materials(text: str) -> list[NamedMaterial]:
    """Every material the text names, in order, each once (by id, system, formula, else by
    elements); a formula token inside a chemical system or an id is part of it, not its own."""
    whole = [*chemical_systems(text), *material_ids(text)]
    found = sorted([*whole, *(m for m in [*_formula_tokens(text), *_names(text)]
                              if not any(m.start < w.end and w.start < m.end for w in whole))],
                   key=lambda m: m.start)
    ambiguous = [m for m in found if _ambiguous(m, text)]
    sure = [m for m in found if m not in ambiguous]
    kept = sure + [m for m in ambiguous if _reads_as_material(m, text, sure)]
    unique: dict[str, NamedMaterial] = {}
    for material in sorted(kept, key=lambda m: m.start):
        unique.setdefault(material.material_id or material.chemsys or material.formula
                          or ",".join(material.elements), material)
    return list(unique.values())


def chemical_systems(text: str) -> list[NamedMaterial]:
    """The chemical systems the text names: three or more element symbols joined by hyphens
    ("Li-Fe-O", "Y-Ba-Cu-O"), or two before "system", "phase diagram", "alloys"... ("the
    Ti-O system"); each symbol once, at least one a metal or metalloid ("C-H-O" is bonds)."""
    found = []
    for match in SYSTEM.finditer(text):
        symbols = re.split(r"[-\u2013]", match.group())
        if (len(set(symbols)) < len(symbols) or not all(s in ELEMENTS for s in symbols)
                or not any(_is_metal_or_metalloid(s) for s in symbols)):
            continue
        if len(symbols) < MIN_BARE_SYSTEM and not SYSTEM_AFTER.match(text[match.end():]):
            continue
        found.append(NamedMaterial(match.group(), None, tuple(symbols), match.start(),
                                   match.end(), chemsys="-".join(sorted(symbols))))
    return found


def material_ids(text: str) -> list[NamedMaterial]:
    """The Materials Project ids the text names ("mp-19017"), each as one material."""
    return [NamedMaterial(m.group(), None, (), m.start(), m.end(), material_id=m.group())
            for m in MATERIAL_ID.finditer(text)]


@cache
def _is_metal_or_metalloid(symbol: str) -> bool:
    from pymatgen.core.periodic_table import Element

    element = Element(symbol)
    return bool(element.is_metal or element.is_metalloid)


def named_elements(text: str, limit: int = 6) -> tuple[str, ...]:
    """Element symbols of the materials ``text`` names, in order, at most ``limit``."""
    symbols = [symbol for material in named_materials(text) for symbol in material.elements]
    return tuple(dict.fromkeys(symbols))[:limit]


def _formula_tokens(text: str) -> list[NamedMaterial]:
    found = []
    for match in _TOKEN.finditer(text):
        token = match.group().rstrip(".")
        formula = _formula_of(token)
        if formula:
            found.append(NamedMaterial(token, formula, _elements_of(formula), match.start(),
                                       match.start() + len(token)))
    return found


def _formula_of(token: str) -> str | None:
    """The formula to search for a token: as written, or reduced when it has parentheses."""
    if is_formula(token):
        return token
    if "(" not in token or token.count("(") != token.count(")"):
        return None
    flat = re.sub(r"[()]", "", token)
    if not _FORMULA.match(flat) or not all(s in ELEMENTS for s in _SYMBOL.findall(flat)):
        return None
    from pymatgen.core.composition import Composition  # slow import, only for such formulas

    try:
        amounts = Composition(token).reduced_composition.get_el_amt_dict()
    except (ValueError, KeyError):
        return None
    return "".join(f"{el}{n:g}" if n != 1 else el for el, n in amounts.items())


def _elements_of(formula: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_SYMBOL.findall(formula)))


def _names(text: str) -> list[NamedMaterial]:
    """Element names alone and compound names (cation names then an anion word)."""
    words = [(m.group().lower(), m.start(), m.end()) for m in re.finditer(r"[A-Za-z]+", text)]
    found: list[NamedMaterial] = []
    i = 0
    while i < len(words):
        j = i
        while j < len(words) and _symbol_of(words[j][0]) and _joined(text, words, j, i):
            j += 1
        if j == i:
            i += 1
            continue
        cations = [_symbol_of(word) or "" for word, _, _ in words[i:j]]
        anion = _anion(words[j][0]) if j < len(words) and _joined(text, words, j, i) else None
        if anion is not None:
            group, charge, count = anion
            formula = compound_formula(cations, group, charge, count)
            elements = tuple(dict.fromkeys([*cations, *_elements_of(group)]))
            found.append(NamedMaterial(text[words[i][1]:words[j][2]], formula, elements,
                                       words[i][1], words[j][2]))
            i = j + 1
            continue
        for word, start, end in words[i:j]:
            symbol = _symbol_of(word) or ""
            if symbol not in GASES and not text[end:end + 1] == "-":
                found.append(NamedMaterial(text[start:end], symbol, (symbol,), start, end))
        i = j
    return found


def _joined(text: str, words: list[tuple[str, int, int]], j: int, first: int) -> bool:
    """Whether word ``j`` continues the name begun at ``first`` (only a space between)."""
    return j == first or text[words[j - 1][2]:words[j][1]] == " "


@cache
def _element_names() -> dict[str, str]:
    from pymatgen.core.periodic_table import Element

    names = {element.long_name.lower(): element.symbol for element in Element
             if element.symbol in ELEMENTS}
    return {**names, **SPELLINGS}


def _symbol_of(word: str) -> str | None:
    return _element_names().get(word)


def _anion(word: str) -> tuple[str, int, int | None] | None:
    """An anion word's group, charge and Greek count ("dioxide": O, -2, 2), or None."""
    word = word.removesuffix("s")
    if word in ANIONS:
        return (*ANIONS[word], None)
    for prefix, count in PREFIXES:
        rest = word.removeprefix(prefix)
        if rest != word and rest in ANIONS:
            return (*ANIONS[rest], count)
    return None


def compound_formula(cations: list[str], group: str, charge: int,
                     count: int | None = None) -> str | None:
    """The formula a compound name stands for, or None when the name allows several.

    A Greek count fixes the anions of one cation ("titanium dioxide": TiO2). Otherwise the
    cations' common oxidation states must balance the anion's charge: one cation in the
    smallest whole numbers (Al3+ and O2- make Al2O3), two cations once each in states up to +4
    with a whole number of anions (Li+ Co3+ and O2- make LiCoO2; Mn7+ belongs in permanganate,
    not in "lithium manganese oxide"). Three or more cations give no formula.
    """
    from pymatgen.core.composition import Composition
    from pymatgen.core.periodic_table import Element

    anion = Composition(group)
    if count is not None:
        return str((Composition({cations[0]: 1}) + anion * count).reduced_formula) \
            if len(cations) == 1 else None
    if len(cations) > 2:
        return None
    highest = 8 if len(cations) == 1 else 4
    states = [[s for s in Element(c).common_oxidation_states if 0 < s <= highest]
              for c in cations]
    formulas = set()
    for combination in product(*states):
        total = sum(combination)
        if len(cations) == 1:
            composition = Composition({cations[0]: -charge}) + anion * total
        elif total % -charge == 0:
            composition = Composition({c: 1 for c in cations}) + anion * (total // -charge)
        else:
            continue
        formulas.add(str(composition.reduced_formula))
    return formulas.pop() if len(formulas) == 1 else None


def system_of(formula: str) -> str:
    """The chemical system a formula belongs to, as the Materials Project writes it
    (LiFePO4: Fe-Li-O-P)."""
    return "-".join(sorted(set(_SYMBOL.findall(formula))))


def reduced_formula(formula: str) -> str:
    """The formula reduced as pymatgen writes it, so TiO2 and Ti2O4 are one composition (a
    formula pymatgen cannot read is returned as given)."""
    from pymatgen.core.composition import Composition

    try:
        return str(Composition(formula).reduced_formula)
    except (ValueError, KeyError):
        return formula


def _ambiguous(material: NamedMaterial, text: str) -> bool:
    """A symbol or name that is also an English word, read as a material only in context."""
    written = material.written
    return written in SYMBOL_WORDS or written.lower() in NAME_WORDS or (
        len(written) == 1 and written.isupper())


def _reads_as_material(material: NamedMaterial, text: str, sure: list[NamedMaterial]) -> bool:
    """Whether an ambiguous word names a material here: not the sentence's first word, and
    listed with another material, after a property, or before a material noun."""
    before, after = text[:material.start], text[material.end:]
    if not before.strip() or re.search(r"[.?!:]\s*$", before):
        return False
    listed = any(LIST_LINK.match(text[other.end:material.start]) or
                 LIST_LINK.match(text[material.end:other.start]) for other in sure)
    return bool(listed or PROPERTY_BEFORE.search(before) or MATERIAL_AFTER.match(after))


WORKING_ION = re.compile(r"\b([a-z]+)-ion\b", re.IGNORECASE)
"""An element named as a battery's working ion ("lithium-ion"), not as a material."""
CLASS_WORDS = re.compile(
    r"\b(?:halide |oxide |hybrid )?perovskites?|(?:high-entropy )?alloys?|cathodes?|anodes?|"
    r"electrodes?|(?:solid )?electrolytes?|semiconductors?|superconductors?|thermoelectrics?|"
    r"topological insulators?|metal-organic frameworks?|zeolites?|ceramics?|glass(?:es)?|"
    r"2d materials|quantum dots?|nanoparticles?|thin films?\b", re.IGNORECASE)
"""Words naming a kind of material, which many compounds of no one formula belong to."""


def material_classes(text: str) -> list[str]:
    """The kinds of material ``text`` names without naming a compound ("lithium-ion cathode",
    "perovskite"), each with the working ion it is for, as written, in order."""
    ions = {m.end(): m.group(0) for m in WORKING_ION.finditer(text)
            if _symbol_of(m.group(1).lower())}
    found = []
    for match in CLASS_WORDS.finditer(text):
        before = text[:match.start()].rstrip()
        ion = ions.get(len(before))
        found.append(f"{ion} {match.group(0)}" if ion else match.group(0))
    return list(dict.fromkeys(found))


def working_ions(text: str) -> list[str]:
    """The element symbols ``text`` names as working ions ("lithium-ion": Li)."""
    return list(dict.fromkeys(symbol for m in WORKING_ION.finditer(text)
                              if (symbol := _symbol_of(m.group(1).lower()))))


UNHELD_PROPERTY = re.compile(
    r"\b(?:(?:thermal|electrical|ionic|electronic|proton) )?conductivit(?:y|ies)|"
    r"(?:carrier |electron |hole )?mobilit(?:y|ies)|(?:elastic |bulk |shear |young's )?"
    r"modul(?:us|i)|hardness|(?:specific |storage |gravimetric )?capacit(?:y|ies)|"
    r"(?:average |operating )?voltages?|melting (?:points?|temperatures?)|thermal expansion|"
    r"refractive ind(?:ex|ices)|dielectric constants?|permittivit(?:y|ies)|"
    r"lattice (?:constants?|parameters?)|(?:tensile |yield )?strength|toughness|"
    r"diffusivit(?:y|ies)|resistivit(?:y|ies)|magneti[sz]ation|seebeck coefficients?",
    re.IGNORECASE)
"""Properties a question may ask that the Materials Project values this review reads
(:data:`~scholargraph.sources.materials.SUMMARY_FIELDS`) do not include: "thermal conductivity
of silicon" was answered with the computed band gap of Si, the property assumed when a question
names none of
:data:`~scholargraph.deterministic.evidence_table.MATERIAL_PROPERTIES`."""


def unheld_properties(question: str) -> list[str]:
    """The properties the question asks that the Materials Project values read here do not
    include (:data:`UNHELD_PROPERTY`), as written, lower-cased, each once."""
    return list(dict.fromkeys(m.group(0).lower() for m in UNHELD_PROPERTY.finditer(question)))
