"""extract_metadata: what a page states about itself, read defensively and in bounded time."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citesift.extract.dates import parse_date_ms
from citesift.extract.licences import licence_from_url, licence_named
from citesift.extract.metadata import PageMetadata, extract_metadata
from citesift.model import Licence

NEWS_PAGE = """<!doctype html>
<html lang="en-GB"><head>
<title>River cleanup reaches its goal | The Valley Gazette</title>
<meta name="description" content="  A   volunteer effort
  cleared two tonnes of rubbish. ">
<meta property="og:site_name" content="The Valley Gazette">
<link rel="canonical" href="/news/river-cleanup">
<link rel="license" href="https://creativecommons.org/licenses/by-sa/4.0/">
<meta property="article:published_time" content="2024-05-01T10:00:00+02:00">
</head><body><h1>River cleanup</h1><p>Text.</p></body></html>"""


def jsonld_page(*objects: object, head: str = "") -> str:
    scripts = "".join(
        f'<script type="application/ld+json">{json.dumps(item)}</script>' for item in objects
    )
    return f"<html><head>{head}{scripts}</head><body><p>x</p></body></html>"


def test_a_news_page_states_all_its_metadata() -> None:
    meta = extract_metadata(NEWS_PAGE, "https://gazette.example/2024/05/story?x=1")
    assert meta == PageMetadata(
        title="River cleanup reaches its goal",
        language="en-GB",
        canonical_url="https://gazette.example/news/river-cleanup",
        description="A volunteer effort cleared two tonnes of rubbish.",
        publisher="The Valley Gazette",
        page_date=1714550400000,
        licence=Licence("CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0/"),
    )


def test_og_title_wins_over_the_title_element_and_h1() -> None:
    html = '<meta property="og:title" content="Stated"><title>Other</title><h1>Head</h1>'
    assert extract_metadata(html).title == "Stated"


def test_title_loses_a_site_name_on_either_side() -> None:
    site = '<meta property="og:site_name" content="Gazette">'
    assert extract_metadata(f"{site}<title>Gazette - A long story</title>").title == (
        "A long story"
    )
    assert extract_metadata(f"{site}<title>A - B - Gazette</title>").title == "A - B"


def test_an_unnamed_short_suffix_is_taken_for_the_site_but_a_long_one_is_kept() -> None:
    assert extract_metadata("<title>How rivers recover · Field Notes</title>").title == (
        "How rivers recover"
    )
    long_tail = "<title>Rust - A language empowering everyone to build software</title>"
    assert extract_metadata(long_tail).title == (
        "Rust - A language empowering everyone to build software"
    )


def test_title_falls_back_to_the_first_h1() -> None:
    assert extract_metadata("<body><h1> Only  <b>heading</b></h1></body>").title == "Only heading"


def test_language_from_content_language_when_html_has_none() -> None:
    html = '<meta http-equiv="Content-Language" content="fr_CA, en"><p>x</p>'
    assert extract_metadata(html).language == "fr-CA"
    assert extract_metadata('<html lang="not a tag!"><p>x</p>').language is None


def test_canonical_needs_an_http_address_and_a_base_for_relative_links() -> None:
    assert extract_metadata('<link rel="canonical" href="/a">').canonical_url is None
    html = '<link rel="canonical" href="javascript:alert(1)">'
    assert extract_metadata(html, "https://a.example/").canonical_url is None
    html = '<link rel="canonical" href="http://[::1">'
    assert extract_metadata(html, "https://a.example/").canonical_url is None


def test_jsonld_graph_gives_publisher_date_and_licence() -> None:
    html = jsonld_page(
        {
            "@context": "https://schema.org",
            "@graph": [
                {"@type": "WebPage", "name": "Page"},
                {
                    "@type": ["NewsArticle"],
                    "datePublished": "2023-11-02",
                    "publisher": {"@type": "Organization", "name": "Northern Post"},
                    "license": {"@id": "https://creativecommons.org/licenses/by-nc-nd/3.0/"},
                },
            ],
        }
    )
    meta = extract_metadata(html)
    assert meta.publisher == "Northern Post"
    assert meta.page_date == 1698883200000
    assert meta.licence == Licence(
        "CC BY-NC-ND 3.0", "https://creativecommons.org/licenses/by-nc-nd/3.0/"
    )


def test_an_organization_node_names_the_publisher_when_no_article_does() -> None:
    html = jsonld_page([{"@type": "Organization", "name": "Acme Labs"}, {"@type": "Thing"}])
    assert extract_metadata(html).publisher == "Acme Labs"


def test_broken_deep_and_huge_jsonld_is_skipped_without_error() -> None:
    good = '<script type="application/ld+json">{"@type":"Organization","name":"Kept"}</script>'
    broken = '<script type="application/ld+json">{"name": "oops",</script>'
    deep = '<script type="application/ld+json">' + "[" * 100_000 + "]" * 100_000 + "</script>"
    huge = '<script type="application/ld+json">{"name":"' + "x" * 600_000 + '"}</script>'
    meta = extract_metadata(f"<html><head>{broken}{deep}{huge}{good}</head></html>")
    assert meta.publisher == "Kept"


def test_page_date_from_time_element_after_garbage_candidates() -> None:
    html = (
        '<meta name="date" content="not a date"><meta name="pubdate" content="0000-00-00">'
        '<time datetime="yesterday">x</time><time datetime="2021-02-03T04:05:06Z">y</time>'
    )
    assert extract_metadata(html).page_date == 1612325106000


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-01T10:00:00Z", 1714557600000),
        ("2024-05-01T12:00:00+0200", 1714557600000),
        ("2024-05-01", 1714521600000),
        ("Wed, 01 May 2024 10:00:00 GMT", 1714557600000),
        ("0001-01-01T00:00:00", None),
        ("garbage", None),
        ("Wed, 01 May 99999 10:00:00 GMT", None),
        ("2024-05-01" + " " * 100, None),
        ("", None),
        (None, None),
    ],
)
def test_dates_parse_to_utc_milliseconds_or_none(text: str | None, expected: int | None) -> None:
    assert parse_date_ms(text) == expected


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://creativecommons.org/licenses/by/4.0/", "CC BY 4.0"),
        ("http://creativecommons.org/licenses/by-sa/3.0/deed.en", "CC BY-SA 3.0"),
        ("https://creativecommons.org/licenses/by/2.5/es/", "CC BY 2.5 ES"),
        ("https://creativecommons.org/publicdomain/zero/1.0/", "CC0 1.0"),
        ("https://creativecommons.org/publicdomain/mark/1.0/", "Public Domain Mark 1.0"),
        ("https://www.gnu.org/licenses/fdl-1.3.html", "GNU FDL"),
    ],
)
def test_licence_urls_get_the_names_people_cite_them_by(url: str, name: str) -> None:
    assert licence_from_url(url, "GNU FDL") == Licence(name, url)


def test_a_licence_stated_by_name_gets_its_address_when_it_is_creative_commons() -> None:
    assert licence_named("CC BY-SA 4.0") == Licence(
        "CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0/"
    )
    assert licence_named("All rights reserved") == Licence("All rights reserved", "")


def test_an_anchor_with_rel_license_states_the_licence() -> None:
    html = '<p>Text under <a rel="nofollow License" href="/terms">our terms</a>.</p>'
    assert extract_metadata(html, "https://a.example/x").licence == Licence(
        "our terms", "https://a.example/terms"
    )


def test_a_page_stating_nothing_has_empty_metadata() -> None:
    assert extract_metadata("") == PageMetadata()
    assert extract_metadata("\x00\ud800 binary \udfff garbage") == PageMetadata()
    assert extract_metadata("<title>Caf\ud800 \x00</title>").title == "Caf\ufffd \ufffd"


@pytest.mark.timeout(30)
def test_a_50_mb_page_is_read_in_bounded_time() -> None:
    page = NEWS_PAGE.replace("</body>", "<div><p>filler text</p></div>" * 1_800_000 + "</body>")
    assert len(page) > 50_000_000
    started = time.perf_counter()
    assert extract_metadata(page).title == "River cleanup reaches its goal"
    assert time.perf_counter() - started < 2


def test_a_quote_inside_an_unquoted_value_does_not_swallow_the_tags_after_it() -> None:
    html = "<meta name=description content=Rock'n'roll><title>T</title><link rel=canonical href=/a>"
    meta = extract_metadata(html, "https://a.example/")
    assert (meta.description, meta.title) == ("Rock'n'roll", "T")
    assert meta.canonical_url == "https://a.example/a"


def test_tags_inside_comments_and_scripts_are_not_read() -> None:
    html = (
        '<!-- <meta name="description" content="commented"> -->'
        '<script>document.write(\'<meta name="description" content="scripted">\')</script>'
        '<meta name="description" content="Fish &amp; chips, &quot;fresh&quot;">'
        '<link rel="canonical" href="/a?x=1&amp;y=2">'
    )
    meta = extract_metadata(html, "https://a.example/")
    assert meta.description == 'Fish & chips, "fresh"'
    assert meta.canonical_url == "https://a.example/a?x=1&y=2"


def test_title_entities_are_decoded_and_markup_inside_h1_is_dropped() -> None:
    assert extract_metadata("<title>Tom &amp; Jerry</title>").title == "Tom & Jerry"
    html = "<h1>Deep<br>sea <em>ven</em>ts&nbsp;today</h1>"
    assert extract_metadata(html).title == "Deep sea vents today"


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "page",
    [
        "<div>" * 100_000 + "<p>deep</p>" + "</div>" * 100_000,
        "<h1>" * 200_000,
        '<a rel="license" href="https://a.example/l">' * 100_000,
        "<title>" + "x" * 10_000_000,
        "<!--" + '<meta name="description" content="x">' * 100_000,
    ],
    ids=["deep-nesting", "nested-h1", "licence-anchors", "unclosed-title", "unclosed-comment"],
)
def test_hostile_structure_is_read_in_bounded_time(page: str) -> None:
    started = time.perf_counter()
    extract_metadata(page, "https://a.example/")
    assert time.perf_counter() - started < 3


def test_parsoid_pages_give_their_title_and_language(wikipedia_fixtures: Path) -> None:
    page = (wikipedia_fixtures / "pages" / "Dog.html").read_text(encoding="utf-8")
    meta = extract_metadata(page, "https://en.wikipedia.org/wiki/Dog")
    assert (meta.title, meta.language) == ("Dog", "en")


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("Bill_Clinton.html", "Bill Clinton"),  # an older Parsoid titles the page by its key
        ("December_1.html", "December 1"),
        ("Rust_(programming_language).html", "Rust (programming language)"),
        ("User_talk%3AKoavf.html", "User talk:Koavf"),
    ],
)
def test_parsoid_titles_read_with_spaces(wikipedia_fixtures: Path, name: str, title: str) -> None:
    page = (wikipedia_fixtures / "pages" / name).read_text(encoding="utf-8")
    assert extract_metadata(page).title == title


def test_a_parsoid_page_without_a_title_is_named_by_the_page_it_is_a_version_of() -> None:
    head = '<link rel="dc:isVersionOf" href="//en.wikipedia.org/wiki/Caf%C3%A9_racer"/>'
    assert extract_metadata(f"<html><head>{head}</head><p>x</p></html>").title == "Café racer"


def test_mediawiki_og_titles_read_with_spaces_too() -> None:
    head = '<meta property="mw:pageId" content="1"/><meta property="og:title" content="A_B"/>'
    assert extract_metadata(f"<html><head>{head}</head></html>").title == "A B"


@pytest.mark.parametrize(
    "head",
    [
        "<title>snake_case names in Python</title>",
        '<meta property="og:title" content="__init__ explained"><title>x</title>',
        '<link rel="canonical" href="https://a.example/wiki/Some_Page"><title>My_File</title>',
    ],
)
def test_underscores_on_ordinary_pages_are_kept(head: str) -> None:
    title = extract_metadata(f"<html><head>{head}</head></html>").title
    assert title is not None and "_" in title


_PIECE = st.sampled_from(
    [
        "<html lang=",
        "<meta ",
        'name="description" ',
        'property="og:title" ',
        "content=",
        '"x"',
        "<title>",
        "</title>",
        "<h1>",
        "</h1>",
        "<!--",
        "-->",
        "<script ",
        'type="application/ld+json">',
        "</script>",
        '{"@graph":[',
        "]}",
        '"publisher":',
        '"datePublished":"2024-01-01"',
        "<link rel=canonical href=",
        "<time datetime=",
        "<a rel=license href=",
        ">",
        "<",
        "&amp;",
        "\x00",
        "\ud800",
        " ",
        "|",
        "é",
    ]
)


@given(st.lists(_PIECE, max_size=40).map("".join), st.sampled_from([None, "https://a.example/"]))
def test_any_markup_gives_metadata_of_the_stated_types(html: str, url: str | None) -> None:
    meta = extract_metadata(html, url)
    for value in (meta.title, meta.language, meta.canonical_url, meta.description, meta.publisher):
        assert value is None or (isinstance(value, str) and value.encode("utf-8"))
    assert meta.page_date is None or isinstance(meta.page_date, int)
    assert meta.licence is None or isinstance(meta.licence, Licence)
