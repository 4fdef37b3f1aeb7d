"""Charset choice: BOM beats HTTP beats <meta> beats detection; bad labels are ignored."""

import codecs
import random
import struct
import time

import pytest

from citesift.encoding import charset_label, decode_html, sniff_charset, utf16_order, wide_charset
from citesift.extract.document import extract_document


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
    decoded, charset = decode_html(garbage)
    assert decoded == garbage.decode(charset, "replace")  # every byte read by the codec chosen


# Short pages with no declared charset, as sites in each language wrote them.
UNDECLARED = [
    ("cp1252", "de", "Größere Übungen für Bäcker, schön süß."),
    ("cp1252", "fr", "Le garçon a mangé une crème brûlée à côté."),
    ("cp1252", "es", "El niño comió piñata mañana, señor."),
    ("cp1252", "en", "Price: 20 € – „cheap“ … café, naïve, ½"),
    ("cp1250", "pl", "Zażółć gęślą jaźń, łódź pływa."),
    ("cp1250", "cs", "Příliš žluťoučký kůň úpěl ďábelské ódy."),
    ("cp1251", "ru", "Привет, как дела? Это короткий текст."),
    ("koi8-r", "ru", "Привет, как дела? Это короткий текст."),
    ("cp1253", "el", "Καλημέρα, τι κάνεις; Αυτό είναι ένα κείμενο."),
    ("cp932", "ja", "これは日本語の短い文章です。東京へ行きます。"),
    ("gb18030", "zh", "这是一个简短的中文句子，我们去北京。"),
    ("big5", "zh-TW", "這是一個簡短的中文句子，我們去台北。"),
    ("koi8-r", "ru", "НАТО и ООН: Москва - столица России, город основан в 1147 году."),
    ("koi8-u", "uk", "Київ - столиця України. Це велике місто на Дніпрі."),
    ("gb18030", "zh", "北京是中国的首都，也是一座历史悠久的城市。"),
    ("cp949", "ko", "안녕하세요, 짧은 한국어 문장입니다."),
]


@pytest.mark.parametrize(("charset", "lang", "text"), UNDECLARED)
@pytest.mark.parametrize("with_lang", [True, False])
def test_short_undeclared_pages_are_read_in_the_charset_they_were_written_in(
    charset: str, lang: str, text: str, with_lang: bool
) -> None:
    opening = f'<html lang="{lang}">' if with_lang else "<html>"
    page = f"{opening}<title>t</title><p>{text}</p></html>"
    decoded, chosen = decode_html(page.encode(charset))
    assert decoded == page, chosen


@pytest.mark.parametrize("text", ["Größere Übungen für Bäcker.", "Preis: 20 € – „billig“ …"])
def test_latin_text_that_several_code_pages_read_alike_is_named_windows_1252(text: str) -> None:
    assert sniff_charset(f"<p>{text}</p>".encode("cp1252")) == "cp1252"


def test_the_pages_language_settles_a_close_call() -> None:
    text = "<p>Привет, как дела? Это короткий текст.</p>".encode("cp1251")
    assert sniff_charset(b'<html lang="ru">' + text) == "cp1251"
    assert sniff_charset(b'<html lang="en">' + text) == "cp1251"  # a wrong lang does not win
    turkish = "<p>Güzel şehir İstanbul'da ağır bir gün.</p>".encode("cp1254")
    assert sniff_charset(b'<html lang="tr">' + turkish) == "cp1254"
    assert sniff_charset(b"<html>" + turkish) == "cp1252"  # no clear lead: the web's default


def test_detection_never_names_an_encoding_browsers_lack() -> None:
    for page in ("<p>café, naïve, ½</p>", "<p>Le garçon a mangé une crème brûlée.</p>"):
        assert sniff_charset(page.encode("cp1252")) == "cp1252"
    assert charset_label(sniff_charset(bytes(range(128, 256)) * 4)) is not None


@pytest.mark.timeout(20)
def test_a_50_mb_undeclared_page_is_decoded_from_a_bounded_sample() -> None:
    page = "<p>Größere Übungen für Bäcker.</p>" * 1_500_000
    body = page.encode("cp1252")
    assert len(body) > 50_000_000
    started = time.perf_counter()
    text, charset = decode_html(body)
    assert (charset, len(text)) == ("cp1252", len(page))
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("stray", [b"\xff", b"\x81", b"\xed\xa0\x80", b"\xe9 "])
def test_a_utf8_page_with_a_stray_bad_byte_is_still_read_as_utf8(stray: bytes) -> None:
    prose = "<p>Le garçon a mangé une crème brûlée à côté.</p>" * 3
    body = prose.encode() + stray + "<p>Привет, как дела?</p>".encode()
    text, charset = decode_html(body)
    assert charset == "utf-8"
    assert text.startswith(prose) and text.endswith("<p>Привет, как дела?</p>")


@pytest.mark.parametrize(
    ("charset", "text"),
    [
        ("cp932", "これは日本語の文章です。東京へ行きます。今日は天気がいいですね。"),
        ("euc_jp", "これは日本語の文章です。東京へ行きます。今日は天気がいいですね。"),
        ("gb18030", "今天天气很好，我们一起去公园散步吧。这是一个中文句子。"),
        ("cp949", "안녕하세요, 이것은 짧은 한국어 문장입니다. 오늘 날씨가 좋네요."),
        ("cp866", "Привет, как дела? Сегодня хорошая погода, пойдём гулять."),
    ],
)
def test_legacy_multi_byte_and_dos_pages_are_not_mistaken_for_utf8(charset: str, text: str) -> None:
    page = f"<p>{text}</p>" * 20
    assert decode_html(page.encode(charset))[0] == page


WIDE_TEXTS = [
    "<html><p>Hello</p></html>",
    '<html lang="ru"><p>Привет, как дела? Это короткий текст.</p></html>',
    "<p>東京は日本の首都です。\u3000東京都の人口は多い。</p>",
]


@pytest.mark.parametrize("text", WIDE_TEXTS)
@pytest.mark.parametrize("order", ["utf-16-le", "utf-16-be"])
def test_undeclared_utf16_without_a_bom_is_told_by_its_nuls(text: str, order: str) -> None:
    body = text.encode(order)
    assert decode_html(body) == (text, order)
    assert wide_charset(body) == order
    words = [block.text for block in extract_document(body).blocks]
    assert words and "\ufffd" not in "".join(words) and "\x00" not in "".join(words)


def test_a_declared_charset_beats_the_utf16_pattern_as_in_a_browser() -> None:
    """WHATWG's order: the HTTP charset is certain, so only undeclared bytes are sniffed (a
    <meta> cannot be read in UTF-16 bytes at all)."""
    body = "<p>Hello</p>".encode("utf-16-le")
    assert sniff_charset(body, "windows-1252") == "cp1252"
    assert sniff_charset(body, "utf-16-be") == "utf-16-be"
    assert sniff_charset(codecs.BOM_UTF16_BE + body[:-1]) == "utf-16-be"  # a BOM beats it


def test_binary_data_and_short_bodies_are_not_taken_for_utf16() -> None:
    samples = (random.Random(7).randint(-300, 300) for _ in range(4000))
    quiet_audio = struct.pack("<4000h", *samples)  # NULs in one byte of many units
    pixels = bytes(range(256)) * 64
    for body in (quiet_audio, pixels, b"\x00\x00\x00\x00" * 100, b"a\x00", b"ab"):
        assert utf16_order(body) is None
    assert wide_charset(codecs.BOM_UTF8 + "<p>a</p>".encode("utf-16-le")) is None
    assert wide_charset(b"\xff\xfe\x00\x00" + "a".encode("utf-32-le")) == "utf-32-le"
