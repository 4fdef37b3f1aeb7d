"""Charset choice: BOM beats HTTP beats <meta> beats detection; bad labels are ignored."""

import pytest

from citesift.encoding import charset_label, decode_html, sniff_charset


def test_bom_wins_over_everything() -> None:
    body = b"\xef\xbb\xbf<meta charset=latin-1>caf\xc3\xa9"
    text, charset = decode_html(body, "iso-8859-2")
    assert charset == "utf-8"
    assert text.endswith("café") and not text.startswith("\ufeff")


def test_http_charset_beats_meta() -> None:
    body = "<meta charset=utf-8><p>café</p>".encode("cp1252")
    assert decode_html(body, "windows-1252")[0].endswith("café</p>")


def test_meta_charset_used_without_http_charset() -> None:
    body = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=koi8-r">'
    body_bytes = body.encode() + "Привет".encode("koi8_r")
    text, charset = decode_html(body_bytes)
    assert charset == "koi8-r" and text.endswith("Привет")


def test_latin1_label_reads_as_windows_1252_like_a_browser() -> None:
    assert charset_label("ISO-8859-1") == "cp1252"
    assert decode_html(b"\x93quoted\x94", "iso-8859-1")[0] == "\u201cquoted\u201d"


@pytest.mark.parametrize("label", ["", None, "no-such-charset", "rot13", "base64", "x" * 300])
def test_unknown_or_non_text_labels_are_ignored(label) -> None:
    assert charset_label(label) is None
    assert sniff_charset(b"plain ascii", label) == "utf-8"


def test_detection_without_any_label_and_garbage_never_raises() -> None:
    text = "Der Bär läuft über die Straße und grüßt. " * 20
    assert decode_html(text.encode("cp1252"))[0] == text
    garbage = bytes(range(256)) * 50
    decoded, _ = decode_html(garbage)
    assert isinstance(decoded, str)
