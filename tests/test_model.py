"""The data model's offset map and snapshot helpers."""

from citesift.model import Block, Snapshot


def test_block_maps_text_positions_through_anchors() -> None:
    source = "<p>Caf&eacute;  bar</p>"
    # text "Café bar": 'Caf' from 3, 'é' from the entity at 6, ' bar' from 14 (after 2 spaces)
    block = Block(
        text="Café bar",
        kind="paragraph",
        section=(),
        source_start=3,
        source_end=19,
        offsets=((0, 3), (3, 6), (4, 15)),
    )
    assert block.to_source(0) == 3
    assert block.to_source(3) == 6
    assert block.to_source(5) == source.index("bar")
    assert block.to_source(len(block.text)) == 19
    start, end = block.source_span(5, 8)
    assert source[start:end] == "bar"


def test_block_without_anchors_is_one_run() -> None:
    block = Block("abc", "paragraph", (), 10, 13)
    assert [block.to_source(i) for i in range(4)] == [10, 11, 12, 13]


def test_snapshot_header_and_text() -> None:
    snap = Snapshot(
        id="x",
        url="http://a/",
        final_url="http://a/",
        status=200,
        headers=(("Content-Type", "text/html; charset=latin-1"),),
        content_type="text/html",
        charset="latin-1",
        fetched_at=0,
        body="café".encode("latin-1"),
    )
    assert snap.header("content-type") == "text/html; charset=latin-1"
    assert snap.header("etag") is None
    assert snap.text() == "café"
