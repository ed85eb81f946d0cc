"""Invented documents for tests, written to their formats' specifications: a PDF of text lines
(to read pages, headings and metadata without a recorded file), and a replay endpoint that
answers every request with one body (a feed edited from a recorded one)."""

from __future__ import annotations

from scholargraph.testing.messages import ReplayRequest, ReplayResponse


def text_pdf(pages: list[list[str]], title: str, info: str = "") -> bytes:
    """A PDF of pages of text lines, the title (and ``info``: more document information
    entries, such as ``/Author (Rossi, Marco)``) in its metadata, written to the PDF 1.4
    specification (catalog, pages, font, a content stream and a page each, info, xref)."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 "
               "/BaseFont /Helvetica >>", f"<< /Title ({title}) {info}>>"]
    kids = []
    for lines in pages:
        text = "BT /F1 10 Tf 72 740 Td 12 TL " + " ".join(
            "(" + line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ") '"
            for line in lines) + " ET"
        objects.append(f"<< /Length {len(text)} >>\nstream\n{text}\nendstream")
        objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                       f"<< /Font << /F1 3 0 R >> >> /Contents {len(objects)} 0 R >>")
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
