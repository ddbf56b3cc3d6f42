"""The hostile-content corpus: text an attacker can put in ids, questions, answers, chunks and
judge replies; the check that a rendered page acts on none of it; and the terminal control
sequences that must never reach a console as sequences."""

import re
from html.parser import HTMLParser

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](java\tscript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<a href='javascript:alert(1)'>x</a>",
    "<svg onload=alert(1)>",
    "<iframe src=//evil></iframe>",
    '"><script>alert(1)</script>',
    "<style>body{display:none}</style>",
    "![p](javascript:alert(1))",
    "<details open ontoggle=alert(1)>",
    "</script><script>alert(1)</script>",
    "&lt;img src=x onerror=alert(1)&gt;",
]

# Terminal control from data: OSC 0 (window title), OSC 52 (writes the clipboard), CSI (clear the
# screen, colour), a C1 CSI, a carriage return that overwrites the line, a bidi override that
# reverses what is shown, DEL, a backspace.
CONTROL = [
    "\x1b]0;pwned-title\x07",
    "\x1b]52;c;ZWNobyBwd25lZA==\x07",
    "\x1b[2J\x1b[31mred",
    "\x9b2J",
    "ok\rFAKE",
    "\u202egnp.exe",
    "\x7f\x08\x00",
]

# What a terminal acts on: C0 controls other than newline and tab, DEL, C1 controls, and the
# bidirectional overrides and isolates.
TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

DANGEROUS_TAGS = {"script", "iframe", "svg", "style", "object", "embed", "details", "marquee", "form", "input", "link", "meta"}


def executable_parts(document: str, own_images: str | None = None) -> list[str]:
    """Tags, event handlers and links a browser would act on (text that merely reads like
    markup is fine: it is escaped and shows as written). ``own_images``: a path prefix of the
    report's own charts, allowed as an image source (report.md links them as files)."""
    found: list[str] = []

    class Scan(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag in DANGEROUS_TAGS:
                found.append(f"<{tag}>")
            for name, value in attrs:
                if name.startswith("on"):
                    found.append(f"{tag} {name}")
                own = own_images is not None and tag == "img" and name == "src" and (value or "").startswith(own_images)
                if name in {"href", "src"} and not own and not (value or "").startswith(
                        ("http://", "https://", "#", "data:image/png;base64,")):
                    found.append(f"{tag} {name}={value}")

    Scan().feed(document)
    return found


def without_own_scripts(body: str) -> str:
    """The page body with the report's own two script elements taken out, after checking they
    are exactly the case data (inert JSON, no '<' inside) and the explorer script."""
    import re

    from assay.rendering.explorer import explorer_script

    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", body, re.S)
    assert [attrs for attrs, _ in scripts] == [' type="application/json" id="assay-cases"', ""], scripts
    assert "<" not in scripts[0][1] and scripts[1][1] == explorer_script()
    return re.sub(r"<script[^>]*>.*?</script>", "", body, flags=re.S)
