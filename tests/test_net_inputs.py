"""Any input, however odd, gets a clear refusal or a sanitised value: never a crash."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citesift.errors import InvalidArgument
from citesift.net import AddressRefused, Target, check_target, retry_after_ms
from citesift.net.decompress import DecompressError, decoder_for
from servers import policy_with_bounds

pytestmark = pytest.mark.timeout(60)


def no_dns(host: str) -> list[str]:
    raise OSError("no resolver in this test")


hosts = st.one_of(
    st.text(max_size=30),
    st.from_regex(r"(0x[0-9a-fA-F]{1,8}|0[0-7]{1,11}|[0-9]{1,10})(\.[0-9x]{1,4}){0,4}"),
    st.ip_addresses().map(lambda ip: f"[{ip}]" if ip.version == 6 else str(ip)),
)


@settings(max_examples=300, deadline=None)
@given(scheme=st.sampled_from(["http", "https", "ftp", "", "HTTP"]), host=hosts, rest=st.text())
def test_checking_any_url_refuses_clearly_or_names_an_address(
    scheme: str, host: str, rest: str
) -> None:
    url = f"{scheme}://{host}/{rest}"
    try:
        target = asyncio.run(check_target(url, no_dns, False))
    except AddressRefused as refusal:
        assert str(refusal)
    else:
        assert isinstance(target, Target)
        assert target.address  # only public literals get here: nothing was resolved


@given(st.one_of(st.none(), st.text(max_size=60)))
def test_retry_after_of_any_header_is_between_zero_and_one_hour(header: str | None) -> None:
    assert 0 <= retry_after_ms(header, 1_700_000_000_000) <= 3_600_000


@settings(max_examples=200, deadline=None)
@given(
    encoding=st.sampled_from(["gzip", "deflate", "br", "zstd", "identity", "gzip, br", "x"]),
    chunks=st.lists(st.binary(max_size=300), max_size=5),
)
def test_decoding_any_bytes_yields_pieces_or_a_decompress_error(
    encoding: str, chunks: list[bytes]
) -> None:
    try:
        decoder = decoder_for(encoding)
        for chunk in chunks:
            for piece in decoder.feed(chunk):
                assert isinstance(piece, bytes)
        decoder.finish()
    except DecompressError as error:
        assert str(error)


@given(number=st.one_of(st.floats(allow_nan=True), st.integers(), st.none(), st.text(max_size=5)))
def test_a_policy_from_any_numbers_is_within_bounds_or_refused_naming_a_field(
    number: object,
) -> None:
    try:
        policy = policy_with_bounds(number)
    except InvalidArgument as error:
        assert str(error).split()[0] in ("deadline", "max_declared_bytes", "max_redirects")
    else:
        assert 0 < policy.deadline <= 600
        assert 0 < policy.max_body_bytes <= 1 << 30
        assert 0 < policy.max_declared_bytes <= 1 << 30
        assert 0 <= policy.max_redirects <= 20
