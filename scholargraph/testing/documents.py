"""Invented documents for tests, written to their formats' specifications: a PDF of text lines
(to read pages, headings and metadata without a recorded file), an RIS library of records, and
a replay endpoint that answers every request with one body (a feed edited from a recorded
one)."""

from __future__ import annotations

from scholargraph.testing.messages import ReplayRequest, ReplayResponse

Line = str | tuple[str, list[str]]
"""A line of a page written by :func:`text_pdf`: text in the body font, or a group of lines
drawn otherwise: ``("figure", lines)`` inside a figure (a form XObject with its own font, as a
plot or diagram is placed on a page) or ``("code", lines)`` in Courier (a listing)."""


def ris_library(records: list[tuple[str, str, str, int | None]]) -> str:
    """An RIS export of journal records, each ``(id, title, abstract, year)``: an empty
    abstract and a year of None are left out, as a reference manager leaves them out."""
    lines: list[str] = []
    for record_id, title, abstract, year in records:
        lines += ["TY  - JOUR", f"ID  - {record_id}", f"TI  - {title}"]
        lines += [f"AB  - {abstract}"] if abstract else []
        lines += [f"PY  - {year}"] if year else []
        lines += ["ER  - ", ""]
    return "\n".join(lines)


def _shown(line: str) -> str:
    return "(" + line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ") '"


def text_pdf(pages: list[list[Line]], title: str, info: str = "") -> bytes:
    """A PDF of pages of text lines, the title (and ``info``: more document information
    entries, such as ``/Author (Rossi, Marco)``) in its metadata, written to the PDF 1.4
    specification (catalog, pages, fonts, a content stream and a page each, info, xref). Body
    lines are set in Helvetica; a ``("code", lines)`` group in Courier, and a ``("figure",
    lines)`` group is a form XObject of its own, its words in Times-Roman, drawn where it
    stands among the lines (:data:`Line`)."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 "
               "/BaseFont /Helvetica >>", f"<< /Title ({title}) {info}>>",
               "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>",
               "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>"]
    kids = []
    for lines in pages:
        forms: list[str] = []
        text = "BT /F1 10 Tf 72 740 Td 12 TL "
        for line in lines:
            if isinstance(line, str):
                text += _shown(line) + " "
            elif line[0] == "code":
                text += "/F2 10 Tf " + " ".join(_shown(row) for row in line[1]) + " /F1 10 Tf "
            else:
                form = ("BT /F3 8 Tf 10 100 Td 10 TL " + " ".join(_shown(row) for row in line[1])
                        + " ET")
                objects.append("<< /Type /XObject /Subtype /Form /BBox [0 0 400 120] "
                               "/Resources << /Font << /F3 6 0 R >> >> "
                               f"/Length {len(form)} >>\nstream\n{form}\nendstream")
                forms.append(f"/Fm{len(forms)} {len(objects)} 0 R")
                text += (f"ET q 1 0 0 1 72 300 cm /Fm{len(forms) - 1} Do Q "
                         "BT /F1 10 Tf 72 280 Td 12 TL ")
        text += "ET"
        objects.append(f"<< /Length {len(text)} >>\nstream\n{text}\nendstream")
        objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                       "<< /Font << /F1 3 0 R /F2 5 0 R >> "
                       f"/XObject << {' '.join(forms)} >> >> /Contents {len(objects)} 0 R >>")
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>"
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 4 0 R >>\nstartxref\n"
            f"{xref}\n%%EOF\n").encode()
    return bytes(out)


class OneFeed:
    """An arXiv endpoint answering every request with one feed."""

    prefix = "arxiv"

    def __init__(self, body: bytes) -> None:
        self.body = body

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        return ReplayResponse(body=self.body, content_type="application/atom+xml")
