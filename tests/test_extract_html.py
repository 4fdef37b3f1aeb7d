"""html_to_blocks: the Wikipedia (Parsoid) rules, article and page modes, kinds and sections."""

from __future__ import annotations

import pytest

from citesift import html_to_blocks

TREATY_LEAD = """<!DOCTYPE html>
<html prefix="dc: http://purl.org/dc/terms/ mw: http://mediawiki.org/rdf/"
 about="https://en.wikipedia.org/wiki/Special:Redirect/revision/1378834026"><head>
<title>Treaty of Versailles</title></head><body class="mw-content-ltr" id="mwAA">
<section data-mw-section-id="0" id="mwAQ">
<div class="shortdescription nomobile noexcerpt noprint searchaux" style="display:none">1919
 peace treaty which ended World War I</div>
<div role="note" class="hatnote navigation-not-searchable">For other treaties signed at
 Versailles, see <a rel="mw:WikiLink" href="./Treaty_of_Versailles_(disambiguation)">Treaty of
 Versailles (disambiguation)</a>.</div>
<table class="infobox" about="#mwt3" typeof="mw:Transclusion"><tbody><tr><th>Treaty of Peace
 with Germany</th></tr><tr><td>Signed<br/>28 June 1919</td></tr></tbody></table>
<p id="mwBg">The <b>Treaty of Versailles</b><sup about="#mwt5" class="mw-ref reference"
 id="cite_ref-2" rel="dc:references" typeof="mw:Extension/ref"
 data-mw='{"name":"ref","attrs":{"group":"lower-roman"}}'><a
 href="./Treaty_of_Versailles#cite_note-2" style="counter-reset: mw-Ref 2;"><span
 class="mw-reflink-text"><span class="cite-bracket">[</span>ii<span
 class="cite-bracket">]</span></span></a></sup>
 was a peace treaty signed on 28 June 1919. As the
 most important treaty of <a rel="mw:WikiLink" href="./World_War_I" title="World War I">World War
 I</a>, it ended the state of war between <a rel="mw:WikiLink" href="./German_Reich">Germany</a>
 and most of the <a rel="mw:WikiLink" href="./Allies_of_World_War_I">Allied Powers</a>. It was
 signed in the <a rel="mw:WikiLink" href="./Palace_of_Versailles">Palace of Versailles</a>,
 exactly five years after the assassination of Archduke Franz Ferdinand, which led to the
 war.<sup class="mw-ref reference" typeof="mw:Extension/ref"><a
 href="./Treaty_of_Versailles#cite_note-3"><span class="mw-reflink-text">[iii]</span></a></sup>
 Although the armistice of 11&nbsp;November&nbsp;1918
 ended the actual fighting, it took six months of Allied negotiations at the <a
 href="./Paris_Peace_Conference,_1919">Paris Peace Conference</a> to conclude the peace
 treaty.<sup class="mw-ref reference" typeof="mw:Extension/ref"><a
 href="./Treaty_of_Versailles#cite_note-4"><span class="mw-reflink-text">[4]</span></a></sup>
 Germany was not allowed to participate in the negotiations before signing the treaty.</p>
</section>
<div class="mw-references-wrap"><ol class="mw-references references">
<li about="#cite_note-2" id="cite_note-2"><span class="mw-reference-text"><span
 typeof="mw:Transclusion" data-mw='{"parts":[{"template":{"target":{"wt":"langx"}}}]}'>French:
 <i lang="fr">Traité de Versailles</i></span></span></li></ol></div>
</body></html>"""

FURNITURE_MIX = """<div role="note" class="hatnote navigation-not-searchable">For other uses, see
 X.</div><div class="shortdescription nomobile noexcerpt noprint searchaux" style="display:none">
Peace treaty</div><table class="infobox"><tr><td>Signed<br>28 June 1919</td></tr></table>
<style>.x{color:red}</style><script>var a = "<p>no</p>";</script><noscript><p>Enable
 JavaScript</p></noscript><p>First <i>one</i>.<br>Second one.</p><figure><img src="a.png">
<figcaption>A caption</figcaption></figure><blockquote><p>A quotation</p></blockquote>
<pre>let x = 1;</pre><math><mi>x</mi></math><p><span class="mwe-math-element">x+y</span></p>
<div class="reflist"><ol><li>Ref one</li></ol></div><div class="mw-references-wrap"><ol
 class="references"><li>Ref two</li></ol></div><div class="navbox"><ul><li><a href="/a">Nav
 link</a></li></ul></div><div role="note">A note</div>
<ul><li>Item &amp; one</li><li>Item two</li></ul><h2>Background</h2><section><p>Café</p>
</section>"""


def texts(html: str, **options: object) -> list[str]:
    return [b.text for b in html_to_blocks(html, **options)]  # type: ignore[arg-type]


def test_treaty_lead_is_one_clean_block() -> None:
    blocks = html_to_blocks(TREATY_LEAD)
    assert len(blocks) == 1
    text = blocks[0].text
    assert text.startswith(
        "The Treaty of Versailles was a peace treaty signed on 28 June 1919. As the most "
        "important treaty of World War I,"
    )
    assert text.endswith("before signing the treaty.")
    for junk in ("[ii]", "[iii]", "[4]", "langx", "cite_note", "Traité", "disambiguation"):
        assert junk not in text


def test_furniture_mix_keeps_only_prose() -> None:
    assert texts(FURNITURE_MIX) == [
        "First one.",
        "Second one.",
        "Item & one",
        "Item two",
        "Background",
        "Café",
    ]


def test_edit_section_and_citation_needed_are_dropped() -> None:
    html = (
        '<h2>Terms<span class="mw-editsection">[edit]</span></h2><p>Signed in 1919.<sup '
        'class="noprint Inline-Template Template-Fact">[<i>citation needed</i>]</sup> Ratified'
        " in 1920.</p>"
    )
    assert texts(html) == ["Terms", "Signed in 1919. Ratified in 1920."]


def test_links_are_judged_by_their_attributes_whatever_their_href() -> None:
    html = (
        '<p>Read <a href="/wiki/A" class="mw-editsection">edit</a> this, <a href="/wiki/B" '
        'class="mw-editsection">edit</a> <a href="/c" hidden>gone</a> and <a '
        'href="/hidden/mw-editsection">kept</a> <a href="/d" aria-hidden="true">gone</a>.</p>'
    )
    assert texts(html, mode="page") == ["Read this, and kept ."]


def test_void_tags_inside_a_dropped_table_do_not_end_the_drop() -> None:
    assert texts('<table><tr><td><br><img src="x"> 1918</td></tr></table><p>After.</p>') == [
        "After."
    ]


def test_text_is_nfc_with_white_space_collapsed() -> None:
    assert texts("<p>Cafe\u0301\n\t  bar</p>") == ["Café bar"]


def test_served_document_drops_its_title_and_starts_with_the_lead() -> None:
    blocks = html_to_blocks(TREATY_LEAD.replace("<p id", "<h1>Treaty of Versailles</h1><p id"))
    assert all(b.text != "Treaty of Versailles" for b in blocks)
    assert blocks[0].text.startswith("The Treaty of Versailles was")


def test_table_cells_are_blocks_and_a_lone_data_table_is_not_read_as_nothing() -> None:
    html = "<table><tr><th>Plan</th><td>$20 per month</td></tr></table>"
    assert texts(html, mode="page") == ["Plan", "$20 per month"]
    assert [b.kind for b in html_to_blocks(html, mode="page")] == ["table_cell", "table_cell"]
    assert texts(html) == ["Plan", "$20 per month"]  # all the page says: no empty article


def test_page_mode_keeps_figures_quotes_code_and_notes_as_own_blocks() -> None:
    kinds = {b.text: b.kind for b in html_to_blocks(FURNITURE_MIX, mode="page")}
    assert kinds["A caption"] == "caption"
    assert kinds["A quotation"] == "quote"
    assert kinds["let x = 1;"] == "code"
    assert kinds["A note"] == "note"
    assert kinds["For other uses, see X."] == "note"
    assert kinds["Signed"] == kinds["28 June 1919"] == "table_cell"
    for gone in ("Peace treaty", "Ref one", "Ref two", "Nav link", "x+y", "Enable JavaScript"):
        assert gone not in kinds


@pytest.mark.parametrize(
    "hidden",
    [
        "<p hidden>secret</p>",
        '<p aria-hidden="true">secret</p>',
        '<p style="color:red; display: none">secret</p>',
        '<p style="font-size:0px">secret</p>',
        '<p>shown <span style="opacity: 0 !important">secret</span></p>',
        '<div style="position:absolute; left:-9999px">secret</div>',
        '<p style="text-indent:-10000px">secret</p>',
        '<span style="clip: rect(0 0 0 0); position: absolute">secret</span>',
        '<span style="clip-path: inset(50%)">secret</span>',
        "<template><p>secret</p></template>",
        "<svg><text>secret</text></svg>",
        '<table class="ambox"><tr><td>secret</td></tr></table>',
        '<p>shown<sup class="reference">[secret]</sup></p>',
    ],
)
def test_page_mode_still_drops_what_a_page_does_not_show(hidden: str) -> None:
    assert "secret" not in " ".join(texts(f"<p>shown</p>{hidden}", mode="page"))


@pytest.mark.parametrize(
    "style", ["opacity:0.5", "font-size:0.8em", "left:-10px", "font-size: 10px", "opacity: 0.05"]
)
def test_text_that_is_merely_small_faint_or_nudged_is_kept(style: str) -> None:
    assert texts(f'<p style="{style}">kept</p>', mode="page") == ["kept"]


def test_heading_path_is_each_blocks_section() -> None:
    html = "<h2>A</h2><p>one</p><h3>B</h3><p>two</p><h2>C</h2><ul><li>three</li></ul>"
    blocks = html_to_blocks(html, mode="page")
    assert [(b.text, b.kind, b.section) for b in blocks] == [
        ("A", "heading", ()),
        ("one", "paragraph", ("A",)),
        ("B", "heading", ("A",)),
        ("two", "paragraph", ("A", "B")),
        ("C", "heading", ()),
        ("three", "list_item", ("C",)),
    ]


def test_unknown_mode_and_bad_budgets_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="mode"):
        html_to_blocks("<p>x</p>", mode="everything")  # type: ignore[arg-type]
    for budget in (-1, 1.5, float("nan"), True):
        with pytest.raises(ValueError, match="budget"):
            html_to_blocks("<p>x</p>", budget=budget)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="decode"):
        html_to_blocks(b"<p>x</p>")  # type: ignore[arg-type]
