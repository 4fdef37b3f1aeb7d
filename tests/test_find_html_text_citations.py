"""A page's text cites as a Markdown document's does: addresses written out, author–year
citations (in brackets or in the sentence) and numbered markers resolved through the page's
reference list (a list, or the paragraphs under a heading ``References``); its code and its
reference list cite nothing."""

from __future__ import annotations

from citesift import find_citations

PAGE = """<html><body><article>
<p>Rust 1.0 shipped in May 2015, as reported at https://blog.rust-lang.org/2015/05/15/Rust-1.0.html.
Its borrow checker is sound (Jung et al., 2018). Smith (2020) found that
Rust programs are safe. It is fast [2]. Obama (2009) spoke.</p>
<p>Try <code>curl https://x.org/api [1]</code> to see.</p>
<pre>(Jung et al., 2018) https://x.org/shown</pre>
<h2>References</h2>
<ol>
<li>Jung, R., Jourdan, J.-H., Krebbers, R., &amp; Dreyer, D. (2018). RustBelt.
  <a href="https://doi.org/10.1145/3158154">doi</a></li>
<li><p>Matsakis, N. (2014). Rust speed. https://a.org/speed</p></li>
</ol>
<p>Smith, J. (2020). <a href="/papers/safety.pdf">Safety of Rust programs</a>.</p>
<h2>Next</h2><p>More prose here https://b.org/more.</p>
</article></body></html>"""


def cited(html: str) -> list[tuple[str, str, str]]:
    found = find_citations(html, "html", "https://site.org/doc")
    return [(c.sentence, c.url, c.marker) for c in found]


def test_a_pages_text_cites_through_its_reference_list() -> None:
    """A page citing by addresses written out, author–year citations or numbered markers
    had no citation found, so its check passed with no source read."""
    assert cited(PAGE) == [
        ("Rust 1.0 shipped in May 2015, as reported at.",
         "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html",
         "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html"),
        ("Its borrow checker is sound.", "https://doi.org/10.1145/3158154",
         "(Jung et al., 2018)"),
        ("Smith found that Rust programs are safe.", "https://site.org/papers/safety.pdf",
         "Smith (2020)"),
        ("It is fast.", "https://a.org/speed", "[2]"),
        ("More prose here.", "https://b.org/more", "https://b.org/more"),
    ]  # fmt: skip


def test_a_paragraph_naming_the_sources_heads_the_reference_list() -> None:
    """A model's answer in HTML lists its sources under a paragraph ``Sources:``; the
    entries' addresses cite no sentence of their own, an unordered list numbers none, and
    the section ends with its list: a paragraph after it is prose again."""
    html = (
        "<p>Rust began at Mozilla [1].\nCargo builds it [2, 3].</p>"
        "<p><strong>Sources:</strong></p><ol start='2'>"
        "<li>https://a.org/two</li><li>https://a.org/three</li></ol>"
        "<ul><li>https://a.org/listed</li></ul>"
        "<p>It is fast [4], see https://a.org/fast.</p>"
    )
    assert cited(html) == [
        ("Cargo builds it.", "https://a.org/two", "[2]"),
        ("Cargo builds it.", "https://a.org/three", "[3]"),
        ("It is fast.", "https://a.org/fast", "https://a.org/fast"),
    ]


def test_a_sentence_wrapped_in_the_pages_source_is_one_sentence() -> None:
    html = "<p>Rust was designed\nby Graydon Hoare\n<a href='https://a.org/h'>[1]</a>.</p>"
    assert cited(html) == [("Rust was designed by Graydon Hoare.", "https://a.org/h", "[1]")]


def test_a_quotation_cites_where_it_is_quoted_from() -> None:
    """``<blockquote cite>`` and ``<q cite>`` name their source with no link: each
    sentence quoted cites it, and the sentences around it do not."""
    html = (
        "<p>Hoare said it plainly.</p><blockquote cite='https://a.org/interview'><p>Rust is "
        "a language\nfor writing safe code. It is fast.</p></blockquote>"
        "<p>He called it <q cite='/q.html'>boring tech</q> once. It stuck.</p>"
        "<p>See <cite>Smith (2020)</cite>.</p>"
    )
    assert cited(html) == [
        ("Rust is a language for writing safe code.", "https://a.org/interview", ""),
        ("It is fast.", "https://a.org/interview", ""),
        ("He called it boring tech once.", "https://site.org/q.html", ""),
    ]


def test_an_address_written_out_with_an_entity_is_read_whole() -> None:
    """A page writes ``&`` in an address as ``&amp;``: the address cited was cut at it."""
    html = "<p>Search it at https://x.org/s?q=a&amp;b=2. It is fine.</p>"
    assert cited(html) == [
        ("Search it at.", "https://x.org/s?q=a&b=2", "https://x.org/s?q=a&b=2"),
    ]


def test_the_blocks_of_a_page_layout_are_sentences_apart() -> None:
    """A site's header, navigation, figure captions and footer ran into the sentence after
    them (``Site name Rust is safe.``): the claim checked held words the page never said
    together."""
    html = (
        "<header>Site name</header>\n<nav>Home</nav>\n"
        "<main>Rust is safe <a href='https://a.org/safe'>source</a>.<hr>"
        "<figure><img src=x.png><figcaption>A crab</figcaption></figure>"
        "It is fast <a href='https://a.org/fast'>source</a>.</main>\n"
        "<aside>Ad</aside><details><summary>More</summary>Go has a collector "
        "<a href='https://a.org/go'>source</a>.</details><footer>Contact</footer>"
    )
    assert cited(html) == [
        ("Rust is safe.", "https://a.org/safe", "source"),
        ("It is fast.", "https://a.org/fast", "source"),
        ("Go has a collector.", "https://a.org/go", "source"),
    ]


def test_a_sentence_citing_one_address_in_two_forms_cites_it_once() -> None:
    """A ``<cite>`` holding an address written out cited it twice: by the ``<cite>`` and
    as an address in the page's text, each counted against the document's check."""
    html = (
        "<p>Rust is safe. <cite>See https://a.org/safe</cite></p>"
        "<p>It is fast. <cite>https://a.org/fast</cite></p>"
    )
    assert cited(html) == [
        ("Rust is safe.", "https://a.org/safe", "https://a.org/safe"),
        ("It is fast.", "https://a.org/fast", "https://a.org/fast"),
    ]
