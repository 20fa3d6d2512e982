"""One document, written twice: as Markdown (figures linked) and as self-contained HTML (figures
embedded as data URIs, styles inline, so index.html opens offline and can be mailed as one file)."""
import base64
import html
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

# Wide tables scroll inside their own box, so the page itself never scrolls sideways on a phone; long
# words (file names, reasons joined by ';') may break anywhere rather than widen a paragraph. On a
# phone a figure keeps a readable width and scrolls inside its own box too.
STYLE = """
body{font-family:system-ui,sans-serif;max-width:1250px;margin:1em auto;padding:0 1em;color:#222;
overflow-wrap:anywhere}
h1{font-size:1.5em;margin:.3em 0}
.scroll{overflow-x:auto;max-width:100%}
.scroll table{overflow-wrap:normal}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right;vertical-align:top}
th{background:#f2f2f2}td:first-child,th:first-child{text-align:left}
caption{text-align:left;font-weight:600;padding:4px 0}
img{max-width:100%;border:1px solid #ddd;margin:.3em 0}
figure{margin:1em 0 2em}figcaption{font-size:13px;color:#555}ul{padding-left:1.3em}
@media (max-width:700px){figure{overflow-x:auto}figure img{max-width:none;width:680px}}
.significant{font-weight:700}.load-flagged{color:#777;font-style:italic}
.reproduced{background:#d9f2d9}.not-reproduced{background:#f8d7d7}.inconclusive{background:#fff3cd}
"""


@dataclass
class Doc:
    title: str
    blocks: list = field(default_factory=list)

    def heading(self, level: int, text: str):
        self.blocks.append(("heading", level, text))

    def para(self, text: str):
        self.blocks.append(("para", text))

    def bullets(self, items: list[str]):
        self.blocks.append(("bullets", items))

    def table(self, frame: pd.DataFrame, caption: str = "", classes: pd.DataFrame | None = None):
        """classes: CSS classes per cell, the frame's shape (the HTML page only: Markdown has none,
        so whatever a class shows must also be in the cell's text)."""
        self.blocks.append(("table", frame, caption, classes))

    def figure(self, path: Path, caption: str):
        self.blocks.append(("figure", path, caption))


# [text](#anchor) in a paragraph or bullet: an in-page link in both outputs. Only links to an anchor
# are read as links, so a ratio's interval followed by a case, "[0.95, 1.16] (case 4)", stays text.
LINK = re.compile(r"\[([^\]]+)\]\((#[a-z0-9-]+)\)")


def anchors(doc: Doc) -> list[str]:
    """Each heading's id, in order, as GitHub names them in Markdown (lower case, punctuation
    dropped, spaces as '-', a repeat numbered -1, -2 …), so one link works in both outputs."""
    seen: dict[str, int] = {}
    out = []
    for block in doc.blocks:
        if block[0] != "heading":
            continue
        slug = re.sub(r"[^\w\- ]", "", block[2].lower()).replace(" ", "-")
        out.append(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return out


CODE = re.compile(r"`([^`]+)`")


def inline(text: str) -> str:
    """Escaped text with its in-page links as <a> and its `code` (commands, options, files) as <code>."""
    linked = LINK.sub(lambda m: f'<a href="{m.group(2)}">{m.group(1)}</a>', html.escape(text))
    return CODE.sub(r"<code>\1</code>", linked)


def cell(value) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def markdown(doc: Doc, base: Path) -> str:
    out = [f"# {doc.title}", ""]
    for block in doc.blocks:
        kind = block[0]
        if kind == "heading":
            out += ["#" * block[1] + " " + block[2], ""]
        elif kind == "para":
            out += [block[1], ""]
        elif kind == "bullets":
            out += [f"- {item}" for item in block[1]] + [""]
        elif kind == "table":
            frame, caption = block[1], block[2]
            if caption:
                out += [f"**{caption}**", ""]
            out.append("| " + " | ".join(map(str, frame.columns)) + " |")
            out.append("|" + "|".join(" --- " for _ in frame.columns) + "|")
            for row in frame.itertuples(index=False):
                out.append("| " + " | ".join(cell(v).replace("|", "\\|") for v in row) + " |")
            out.append("")
        elif kind == "figure":
            out += [f"![{block[2]}]({block[1].relative_to(base).as_posix()})", "", f"*{block[2]}*", ""]
    return "\n".join(out)


def html_page(doc: Doc) -> str:
    e = html.escape
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{e(doc.title)}</title><style>{STYLE}</style></head><body>", f"<h1>{e(doc.title)}</h1>"]
    ids = iter(anchors(doc))
    for block in doc.blocks:
        kind = block[0]
        if kind == "heading":
            out.append(f'<h{block[1]} id="{next(ids)}">{e(block[2])}</h{block[1]}>')
        elif kind == "para":
            out.append(f"<p>{inline(block[1])}</p>")
        elif kind == "bullets":
            out.append("<ul>" + "".join(f"<li>{inline(i)}</li>" for i in block[1]) + "</ul>")
        elif kind == "table":
            frame, caption, classes = block[1:]
            out.append('<div class="scroll"><table>' + (f"<caption>{e(caption)}</caption>" if caption else ""))
            out.append("<tr>" + "".join(f"<th>{e(str(c))}</th>" for c in frame.columns) + "</tr>")
            for i, row in enumerate(frame.itertuples(index=False)):
                css = classes.iloc[i] if classes is not None else [""] * len(row)
                out.append("<tr>" + "".join(td(cell(v), c) for v, c in zip(row, css)) + "</tr>")
            out.append("</table></div>")
        elif kind == "figure":
            data = base64.b64encode(block[1].read_bytes()).decode("ascii")
            out.append(f'<figure><img alt="{e(block[2])}" src="data:image/png;base64,{data}">'
                       f"<figcaption>{e(block[2])}</figcaption></figure>")
    out.append("</body></html>")
    return "\n".join(out)


def td(text: str, css: str = "") -> str:
    """Verdict cells (ours, and the study's own tables') get a colour so the outcome stands out in
    a long table."""
    css = css or {"reproduced": "reproduced", "not reproduced": "not-reproduced",
                  "inconclusive": "inconclusive", "supported": "reproduced",
                  "not supported": "not-reproduced", "depends on the transcription": "inconclusive"}.get(text)
    return f'<td class="{css}">{html.escape(text)}</td>' if css else f"<td>{html.escape(text)}</td>"


def write(doc: Doc, out: Path) -> None:
    """The document as out/report.md and out/index.html."""
    (out / "report.md").write_text(markdown(doc, out))
    (out / "index.html").write_text(html_page(doc))
