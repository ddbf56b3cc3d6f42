"""Make rendered report HTML inert: an allowlist of tags and attributes, safe links only.

The markdown renderer already refuses raw HTML; this pass is the second wall. Whatever a
dataset, a generation or a judge wrote, the page that comes out has no script, no event
handler, no style or iframe, and links only to http(s) addresses or anchors in the page.
Images are the report's own charts (PNG data URIs) and nothing else.
"""

from __future__ import annotations

import html
from html.parser import HTMLParser

ALLOWED_TAGS = {
    "h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "ul", "ol", "li", "blockquote",
    "table", "thead", "tbody", "tr", "th", "td", "code", "pre", "strong", "em", "b", "i", "a", "img",
}  # fmt: skip
VOID_TAGS = {"br", "hr", "img"}
DROP_CONTENT = {"script", "style", "iframe", "object", "embed", "template", "noscript", "svg", "math"}
ALLOWED_ATTRS = {"a": {"href", "title"}, "img": {"src", "alt"}, "th": {"align"}, "td": {"align"}}
SAFE_LINK_PREFIXES = ("http://", "https://", "#")
SAFE_IMAGE_PREFIX = "data:image/png;base64,"


def safe_href(value: str) -> bool:
    # Browsers ignore ASCII whitespace and control characters inside a scheme ("java\tscript:").
    compact = "".join(ch for ch in value if ch > " ").lower()
    return compact.startswith(SAFE_LINK_PREFIXES)


class _Sanitizer(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.dropping = 0  # depth inside a tag whose content is dropped

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in DROP_CONTENT:
            self.dropping += 1
            return
        if self.dropping or tag not in ALLOWED_TAGS:
            return
        kept = []
        for name, value in attrs:
            value = value or ""
            if name not in ALLOWED_ATTRS.get(tag, set()):
                continue
            if name == "href" and not safe_href(value):
                continue
            if name == "src" and not value.startswith(SAFE_IMAGE_PREFIX):
                continue
            kept.append(f' {name}="{html.escape(value, quote=True)}"')
        if tag == "a" and any(k.startswith(" href") for k in kept):
            kept.append(' rel="noopener noreferrer"')
        self.out.append(f"<{tag}{''.join(kept)}>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in DROP_CONTENT:
            self.dropping -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag in DROP_CONTENT:
            self.dropping = max(0, self.dropping - 1)
            return
        if not self.dropping and tag in ALLOWED_TAGS and tag not in VOID_TAGS:
            self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.dropping:
            self.out.append(html.escape(data, quote=False))

    # Comments, doctypes and processing instructions never reach the page.
    def handle_comment(self, data: str) -> None: ...
    def handle_decl(self, decl: str) -> None: ...
    def handle_pi(self, data: str) -> None: ...
    def unknown_decl(self, data: str) -> None: ...


def sanitize_html(fragment: str) -> str:
    """The fragment with only allowlisted tags, attributes and links left, text escaped."""
    parser = _Sanitizer()
    parser.feed(fragment)
    parser.close()
    return "".join(parser.out)
