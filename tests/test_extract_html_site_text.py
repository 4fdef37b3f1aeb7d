"""Article mode where names mislead main-content detection: a site's footer text beside a
short post, the furniture words in ids that documentation generators build from section
titles, and furniture words run together in camel-case or numbered names. Each rule has
its guard: the pages where the same names mean what they say, or say nothing."""

from __future__ import annotations

from citesift import html_to_blocks

POST = (
    "In addition to the first set of sample pictures from the new lens I published a few "
    'days ago, here are a few more <a href="https://photos.example/set">found on a photo '
    "sharing site</a>."
)
POST_TEXT = (
    "In addition to the first set of sample pictures from the new lens I published a few "
    "days ago, here are a few more found on a photo sharing site."
)
POST_MORE = (
    "The lens is expected in shops next month, and the first reviews should follow it within "
    "a few weeks."
)
RELATED = [
    "More sample pictures taken with the wide angle lens",
    "New sample pictures taken with the portrait lens",
    "Sample pictures from the new entry level camera",
    "The wide angle lens reviewed, with more sample pictures",
]
DISCLAIMER = (
    "Disclaimer: this site has no affiliation with the camera maker or any of its "
    "subsidiaries. Please visit the maker's official website for its own news. All "
    "trademarks are the property of their respective owners."
)
ABOUT = (
    "Lens Rumours has followed the camera maker's plans since 2008: what its next cameras and "
    "lenses will be, when they come, and what the first pictures taken with them look like."
)
NEWS = (
    "Club news: the new floodlights on courts three and four are in, and evening bookings "
    "open on Monday."
)
TERMS = [
    "These terms govern your use of the club's website and of the booking service it offers "
    "to members and to guests who book a court through a member.",
    "A booking is confirmed when the club's email reaches you; a court not claimed within "
    "ten minutes of the start of a booking may be given to the next member waiting.",
    "The club may change these terms with a month's notice on this page and by email to "
    "every member, and the terms in force on the day of a booking apply to it.",
]


def texts(html: str) -> list[str]:
    return [b.text for b in html_to_blocks(html)]


def post_page() -> str:
    """A short blog post with a list of related posts, a sidebar and the site's footer."""
    related = "".join(f'<li><a href="/{n}">{t}</a></li>' for n, t in enumerate(RELATED))
    months = "".join(
        f'<li><a href="/2012/{n}">Posts of month {n} in 2012</a></li>' for n in range(12)
    )
    return (
        "<html><head><title>More sample pictures | Lens Rumours</title></head><body>"
        '<div id="content"><div class="post"><h1>More sample pictures</h1>'
        f"<p>{POST}</p><p>{POST_MORE}</p><p>Related posts:</p><ol>{related}</ol></div></div>"
        f'<div id="sidebar"><h3>About this site</h3><p>{ABOUT}</p><ul>{months}</ul></div>'
        f'<div id="footer"><div id="siteinfo"><p>{DISCLAIMER}</p>'
        "<p>Copyright 2008-2012 Lens Rumours</p></div></div></body></html>"
    )


def test_a_site_footer_does_not_outscore_a_short_post() -> None:
    kept = texts(post_page())
    assert [t for t in kept if t in (POST_TEXT, POST_MORE)] == [POST_TEXT, POST_MORE]
    assert DISCLAIMER not in kept


def test_a_page_of_legal_text_is_its_own_article() -> None:
    terms = "".join(f"<p>{t}</p>" for t in TERMS)
    courts = "".join(
        f'<li><a href="/book/{n}">Book court number {n} now</a></li>' for n in range(8)
    )
    html = (
        '<html><body><nav><a href="/">Home</a></nav>'
        f'<div class="legal"><h1>Terms of use</h1>{terms}</div>'
        f'<div class="box"><p>{NEWS}</p><ul>{courts}</ul></div>'
        '<div id="footer"><p>Copyright 2024 The Riverside Tennis Club</p></div></body></html>'
    )
    assert texts(html) == ["Terms of use", *TERMS]


ESSAY_TEXT = [
    "The first mill on the river was built in 1790 to card and spin wool, and by 1850 there "
    "were eleven, with the terraces of the workers' houses climbing the hill behind them.",
    "The last of them closed in 1968; three were pulled down, and the others are flats, "
    "offices and a museum of the town's trade that keeps one spinning frame at work.",
    "The museum's volunteers still run the frame on Saturdays, and children who visit take "
    "home a skein of the yarn it spins, as their great-grandparents once did for wages.",
]
GUIDE = {
    "Mutable history shared": [
        "Once you have mastered rewriting history in a single repository, you can move on to "
        "sharing rewritten changesets between repositories and between people.",
    ],
    "Sharing with a single developer": [
        "The simplest case is one developer working across two computers: code written on a "
        "laptop must be tested on a server before it is ready to be committed for good.",
        "With mutable history the half-done work can be committed, pulled to the server, "
        "fixed there and amended, and only the finished changeset is ever published.",
    ],
    "Publishing and draft repositories": [
        "A repository that publishes makes every changeset pushed to it public, and public "
        "changesets are never rewritten again by anyone who pulls them later on.",
        "A draft repository keeps them mutable, which is what a test server or a review "
        "server needs, so each is configured not to publish what it receives.",
    ],
}


def guide_page(section: str) -> str:
    """A documentation page whose sections carry ids as ``section`` builds them from a title."""
    parts = "".join(
        section.format(id="-".join(title.lower().split()), title=title)
        + "".join(f"<p>{p}</p>" for p in paras)
        + "</div>"
        for title, paras in GUIDE.items()
    )
    return f'<html><body><div class="document">{parts}</div></body></html>'


def test_a_section_id_made_from_its_title_is_not_a_furniture_name() -> None:
    kept = texts(guide_page('<div class="section" id="{id}"><h2>{title}</h2>'))
    assert kept == [t for title, paras in GUIDE.items() for t in (title, *paras)]


def test_a_furniture_id_that_is_not_the_title_still_names_furniture() -> None:
    teaser = (
        "Our readers have been sending in their stories of the mills, and we have gathered the "
        "best of them on a page of their own, with pictures from the town archive."
    )
    story = "".join(f"<p>{p}</p>" for p in ESSAY_TEXT)
    boxes = (
        f'<div id="sharing-our-readers-stories"><h3>From our readers</h3><p>{teaser}</p></div>'
        f'<div id="related-reading"><h3>Related reading</h3><p>{teaser}</p></div>'
    )
    html = f"<html><body><div><h1>The mills</h1>{story}{boxes}</div></body></html>"
    assert texts(html) == ["The mills", *ESSAY_TEXT]


TEASERS = [
    "Scotland's a football backwater, and I would never bring a client to Glasgow now, the "
    "agent says after a week of talks that went nowhere.",
    "The manager is considering taking legal action against the club's owner for "
    "constructive dismissal after the row over transfers.",
]


def story_page(box: str) -> str:
    """A story in a plain column, then a box named by ``box`` that holds paragraphs."""
    story = "".join(f"<p>{p}</p>" for p in ESSAY_TEXT[:2])
    teasers = "".join(f'<p><a href="/t{n}">Read</a> {t}</p>' for n, t in enumerate(TEASERS))
    return (
        f"<html><body><div><div><h1>The mills</h1>{story}</div>"
        f"<div {box}>{teasers}</div></div></body></html>"
    )


def test_furniture_words_run_together_in_a_name_still_name_furniture() -> None:
    for box in ('id="AdsLeft"', 'class="relatedStories"', 'id="footer2"'):
        assert texts(story_page(box)) == ["The mills", *ESSAY_TEXT[:2]], box


def test_a_name_is_split_only_where_its_words_meet() -> None:
    for box in ('class="adviceColumn"', 'id="Shareholders"', 'class="readersLetters"'):
        read = [f"Read {t}" for t in TEASERS]
        assert texts(story_page(box)) == ["The mills", *ESSAY_TEXT[:2], *read], box
