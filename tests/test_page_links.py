"""page_links: a page's links in order, normalised and deduplicated, with their anchor text,
after a <base href>, never from inside a script or comment, in time linear in the page; the
anchors left unread past the cap or the deadline counted and said."""

from __future__ import annotations

import time

from citesift.scrape.links import scrape_links
from citesift.scrape.urls import page_links

BASE = "https://example.org/dir/page.html"


def test_links_are_read_with_their_text_in_page_order() -> None:
    html = (
        "<html><head><base href='/other/'><script>var s = '<a href=\"/js\">x</a>';</script>"
        "</head><body><!-- <a href='/commented'>c</a> -->"
        '<A HREF="one?a=1&amp;b=2#frag">One <b>bold</b>&nbsp;link</A>'
        "<a href=/two>Two</a><a href='one?a=1&amp;b=2'>again</a>"
        "<a name=anchor>no href</a><a href='mailto:x@example.org'>mail</a>"
        f"<a href='/{'x' * 9000}'>too long</a>"
        "<a href='https://elsewhere.example/x'>Out<p>side"
    )
    assert page_links(html, BASE).found == {
        "https://example.org/other/one?a=1&b=2": "One bold link",
        "https://example.org/two": "Two",
        "https://elsewhere.example/x": "Out side",
    }


def test_a_base_after_the_first_link_is_ignored_and_the_cap_holds() -> None:
    html = "<a href='a'>A</a><base href='/elsewhere/'>" + "".join(
        f"<a href='p{i}'>{i}</a>" for i in range(50)
    )
    read = page_links(html, BASE, cap=10)
    assert list(read.found)[:2] == ["https://example.org/dir/a", "https://example.org/dir/p0"]
    assert len(read.found) == 10 and read.unread == 41 and not read.late
    assert read.problem() == (
        "41 anchor(s) of the page were not read:"
        " a page's first 10 links are read, from 40 anchors at most"
    )
    assert page_links(html, BASE, cap=60).problem() is None


def test_only_the_first_base_counts_as_in_html() -> None:
    html = "<base href='/one/'><base href='/two/'><a href='x'>X</a>"
    assert page_links(html, BASE).found == {"https://example.org/one/x": "X"}


def test_a_link_keeps_the_first_text_one_of_its_anchors_has() -> None:
    html = "<a href='/'><img src=logo.png></a><a href='/'>Home</a><a href='/'>Start</a>"
    assert page_links(html, BASE).found == {"https://example.org/": "Home"}


def test_fragments_of_one_address_are_one_link_and_the_anchors_past_the_budget_counted() -> None:
    html = "".join(f"<a href='#part-{i}'>{i}</a>" for i in range(100)) + "<a href='/last'>L</a>"
    read = page_links(html, BASE, cap=5)
    assert read.found == {BASE: "0"}
    assert read.unread == 101 - 5 * 4  # each anchor read counts against the cap's budget


def test_reading_stops_at_its_deadline_and_says_so() -> None:
    html = "".join(f"<a href='p{i}'>{i}</a>" for i in range(5_000))
    read = page_links(html, BASE, seconds=0)
    assert read.late and 0 < len(read.found) < 1_000
    assert read.unread == 5_000 - len(read.found)
    assert "deadline" in (read.problem() or "")


def test_a_scrape_warns_of_the_links_it_left_unread() -> None:
    warnings: list[str] = []
    html = "".join(f"<a href='p{i}'>{i}</a>" for i in range(10_005))
    links = scrape_links(html, BASE, warnings)
    assert len(links) == 10_000 and links[0].url == "https://example.org/dir/p0"
    assert warnings == [
        "links: 5 anchor(s) of the page were not read:"
        " a page's first 10,000 links are read, from 40,000 anchors at most"
    ]


def test_hostile_markup_is_read_in_linear_time() -> None:
    def seconds(n: int) -> float:
        html = "<a href='x'" * n + "<a href=y>" * n + "<div>" * n
        started = time.perf_counter()
        page_links(html, BASE)
        return time.perf_counter() - started

    small, large = seconds(20_000), seconds(80_000)
    assert large < 10 * small + 0.05
