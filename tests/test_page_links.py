"""page_links: a page's links in order, normalised and deduplicated, with their anchor text,
after a <base href>, never from inside a script or comment, in time linear in the page."""

from __future__ import annotations

import time

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
    assert page_links(html, BASE) == {
        "https://example.org/other/one?a=1&b=2": "One bold link",
        "https://example.org/two": "Two",
        "https://elsewhere.example/x": "Out side",
    }


def test_a_base_after_the_first_link_is_ignored_and_the_cap_holds() -> None:
    html = "<a href='a'>A</a><base href='/elsewhere/'>" + "".join(
        f"<a href='p{i}'>{i}</a>" for i in range(50)
    )
    found = page_links(html, BASE, cap=10)
    assert list(found)[:2] == ["https://example.org/dir/a", "https://example.org/dir/p0"]
    assert len(found) == 10


def test_hostile_markup_is_read_in_linear_time() -> None:
    def seconds(n: int) -> float:
        html = "<a href='x'" * n + "<a href=y>" * n + "<div>" * n
        started = time.perf_counter()
        page_links(html, BASE)
        return time.perf_counter() - started

    small, large = seconds(20_000), seconds(80_000)
    assert large < 10 * small + 0.05
