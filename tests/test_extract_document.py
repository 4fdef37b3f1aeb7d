"""extract_document: blocks, metadata and provenance from a snapshot, decoded HTML or bytes."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citesift.encoding import decode_html
from citesift.errors import DocumentError
from citesift.extract.document import extract_document
from citesift.extract.source import source_text
from citesift.model import Licence, Snapshot

PAGE = """<html lang="en"><head><title>Plans and prices | Acme Cloud</title>
<meta name="description" content="What each plan costs.">
<link rel="license" href="https://creativecommons.org/licenses/by/4.0/">
<script type="application/ld+json">{"@type":"WebPage","datePublished":"2024-02-01",
"publisher":{"name":"Acme Cloud"}}</script></head>
<body><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav>
<h1>Plans and prices</h1>
<p>Every plan includes unlimited projects and a shared workspace for the whole team.</p>
<table><tr><th>Plan</th><td>$20 per month</td></tr></table>
<p>Prices are billed monthly and can be cancelled at any time from the account page.</p>
</body></html>"""


def snapshot(body: bytes, **changes: object) -> Snapshot:
    fields: dict[str, object] = {
        "id": hashlib.sha256(body).hexdigest(),
        "url": "http://acme.example/plans",
        "final_url": "https://www.acme.example/pricing",
        "status": 200,
        "headers": (("Content-Language", "en-US"),),
        "content_type": "text/html",
        "charset": "utf-8",
        "fetched_at": 1_717_000_000_000,
        "body": body,
    }
    fields.update(changes)
    return Snapshot(**fields)  # type: ignore[arg-type]


def texts(document: object) -> list[str]:
    return [block.text for block in document.blocks]  # type: ignore[attr-defined]


def test_a_snapshot_gives_its_final_url_fetch_time_and_id() -> None:
    shot = snapshot(PAGE.encode())
    document = extract_document(shot)
    assert (document.url, document.site, document.key) == (
        "https://www.acme.example/pricing",
        "www.acme.example",
        "https://www.acme.example/pricing",
    )
    assert (document.read_at, document.snapshot_id) == (shot.fetched_at, shot.id)
    assert document.title == "Plans and prices"
    assert document.publisher == "Acme Cloud"
    assert document.page_date == 1706745600000
    assert document.description == "What each plan costs."
    assert document.licence == Licence("CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/")
    assert document.language == "en"
    assert document.revision is None and document.truncated is False


def test_article_mode_keeps_prose_and_page_mode_adds_the_table() -> None:
    article = texts(extract_document(PAGE, url="https://acme.example/"))
    page = texts(extract_document(PAGE, url="https://acme.example/", mode="page"))
    assert "Plan" not in article and "$20 per month" not in article
    assert article[0].startswith("Every plan includes")
    assert page[page.index("Plan") + 1] == "$20 per month"


def test_a_snapshot_is_decoded_with_its_charset_and_without_one_by_utf8() -> None:
    body = "<p>Caf\u00e9 cr\u00e8me on the terrace, served every morning from eight.</p>"
    latin = extract_document(snapshot(body.encode("cp1252"), charset="cp1252"))
    assert texts(latin) == [body[3:-4]]
    utf8 = extract_document(snapshot(body.encode("utf-8"), charset=None))
    assert texts(utf8) == [body[3:-4]]


def test_a_charset_label_no_codec_knows_falls_back_to_sniffing() -> None:
    body = '<meta charset="windows-1252"><p>Na\u00efve \u00e9t\u00e9</p>'.encode("cp1252")
    document = extract_document(snapshot(body, charset="x-no-such-charset"))
    assert texts(document) == ["Na\u00efve \u00e9t\u00e9"]


def test_the_content_language_header_fills_in_when_the_page_states_none() -> None:
    document = extract_document(snapshot(b"<p>Short text.</p>"))
    assert document.language == "en-US"


def test_bytes_are_decoded_by_their_meta_charset() -> None:
    html = '<html><head><meta charset="iso-8859-1"></head><body><p>\u00bfQu\u00e9 tal?</p>'
    document = extract_document(html.encode("latin-1"))
    assert texts(document) == ["\u00bfQu\u00e9 tal?"]


def test_without_a_url_the_canonical_link_names_the_page() -> None:
    html = '<link rel="canonical" href="https://docs.example/a/b"><p>Text here.</p>'
    document = extract_document(html)
    assert (document.url, document.site, document.key) == (
        "https://docs.example/a/b",
        "docs.example",
        "https://docs.example/a/b",
    )


def test_site_and_key_can_be_given() -> None:
    document = extract_document(PAGE, url="https://acme.example/x", site="acme", key="plans")
    assert (document.site, document.key, document.url) == (
        "acme",
        "plans",
        "https://acme.example/x",
    )


def test_title_falls_back_to_the_first_heading_then_to_the_url() -> None:
    titled = extract_document("<h2>Only a section</h2><p>Body.</p>", url="https://a.example/p")
    assert titled.title == "Only a section"
    untitled = extract_document("<p>Body.</p>", url="https://a.example/p")
    assert untitled.title == "https://a.example/p"
    assert extract_document("<p>Body.</p>").title == ""


def test_read_at_is_now_when_there_is_no_snapshot() -> None:
    before = time.time_ns() // 1_000_000
    document = extract_document(b"<p>x</p>")
    assert before <= document.read_at <= time.time_ns() // 1_000_000
    assert document.snapshot_id is None


def test_the_budget_cut_is_reported_as_truncated() -> None:
    html = "<p>" + "word " * 400 + "</p><p>later</p>"
    document = extract_document(html, budget=100)
    assert document.truncated is True
    assert sum(len(text) for text in texts(document)) <= 100
    assert "later" not in " ".join(texts(document))


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"mode": "everything"}, ValueError),
        ({"budget": -1}, ValueError),
        ({"budget": float("nan")}, ValueError),
        ({"budget": True}, ValueError),
    ],
)
def test_absurd_options_raise_a_clear_error(options: dict[str, object], error: type) -> None:
    with pytest.raises(error, match=r"^(mode|budget) must be"):
        extract_document("<p>x</p>", **options)  # type: ignore[arg-type]


def test_a_source_of_another_type_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match="Snapshot, str or bytes"):
        extract_document(42)  # type: ignore[arg-type]


@pytest.mark.timeout(30)
def test_binary_garbage_and_broken_markup_give_a_document_not_an_error() -> None:
    garbage = bytes(range(256)) * 2_000 + b"<p>\x00<div" * 5_000
    document = extract_document(garbage, url="not a url at all")
    assert document.site == "" and document.url == "not a url at all"
    assert isinstance(document.blocks, tuple)


@pytest.mark.timeout(60)
def test_deep_nesting_and_a_50_mb_page_are_read_in_bounded_time() -> None:
    deep = "<div>" * 100_000 + "<p>Deep text.</p>" + "</div>" * 100_000
    started = time.perf_counter()
    assert texts(extract_document(deep)) == ["Deep text."]
    huge = PAGE.replace("</body>", "<p>More prose about plans and prices.</p>" * 1_250_000)
    document = extract_document(huge.encode(), budget=10_000)
    assert len(huge) > 50_000_000 and document.truncated
    assert time.perf_counter() - started < 30


_MARKUP = (b"<p>", b"</p>", b"<td>", b"<h2>", b"</h2>", b"<table>", b"<li>", b"<script>")
_BYTES = st.lists(
    st.one_of(st.binary(max_size=12), st.sampled_from([*_MARKUP, b"&amp;", b"\xc3\xa9", b" w "])),
    max_size=60,
).map(b"".join)


@settings(max_examples=80, deadline=None)
@given(_BYTES, st.sampled_from(["article", "page"]))
def test_any_bytes_give_a_document_whose_blocks_are_in_the_source(body: bytes, mode: str) -> None:
    """Bytes that start as a PDF or a zip are a clear DocumentError when broken; others are
    read as HTML."""
    try:
        document = extract_document(body, mode=mode)  # type: ignore[arg-type]
    except DocumentError:
        assert body.lstrip(b"\x00\t\n\x0c\r ").startswith(b"%PDF-") or body.startswith(b"PK")
        return
    html = decode_html(body)[0]
    for block in document.blocks:
        shown = source_text(html, block.source_start, block.source_end, mode)  # type: ignore[arg-type]
        assert block.text in shown


def test_parsoid_pages_read_with_title_language_and_exact_spans(
    wikipedia_fixtures: Path,
) -> None:
    for path in sorted((wikipedia_fixtures / "pages").glob("*.html")):
        html = path.read_text(encoding="utf-8")
        document = extract_document(html, url=f"https://en.wikipedia.org/wiki/{path.stem}")
        assert document.site == "en.wikipedia.org" and document.language == "en"
        assert document.title.replace("_", " ") in path.stem.replace("_", " ").replace("%3A", ":")
        assert document.blocks, path.name
        for block in document.blocks:
            shown = source_text(html, block.source_start, block.source_end)
            assert block.text in shown, (path.name, block.text[:60])
