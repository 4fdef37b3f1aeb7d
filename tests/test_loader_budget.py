"""The text budget reaches every loader as it reaches a local file: a folder's files, a
page of a URL list, an S3, Cloud Storage, GitHub or Notion document is held to ``budget``
characters (``index_add`` and ``index add --budget`` pass theirs on), its revision says the
budget cut it, ``index add`` names it so, and a budget out of range is refused before any
request is sent or file read, by the one check every budget goes through."""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest

from citesift import PageLimits, WebPageSource, index_add
from citesift.errors import InvalidArgument
from citesift.extract.html import MAX_SOURCE_CHARS
from citesift.model import SourceDocument
from citesift.net import ClientIdentity
from citesift.sources.loaders.files import load_folder
from citesift.sources.loaders.gcs import load_gcs_sync
from citesift.sources.loaders.github import GitHubRepo, load_github_tree_sync
from citesift.sources.loaders.notion import load_notion_page_sync
from citesift.sources.loaders.s3 import load_s3_sync, parse_s3
from citesift.sources.loaders.urls import load_urls_sync
from servers import MisbehavingServer, loopback_policy
from test_cli_loaders import run, services  # noqa: F401 - fixture
from test_loader_s3 import credentials, moto_url  # noqa: F401 - fixtures
from test_loader_urls import HOST, resolve, site  # noqa: F401 - fixture

BUDGET = 12
ONBOARDING = b"# Onboarding\n\nWelcome aboard, and read the handbook first."


def kept(document: SourceDocument) -> int:
    return sum(len(block.text) for block in document.blocks)


def cut_to_budget(document: SourceDocument) -> bool:
    return (
        document.truncated
        and document.budget_cut
        and 0 < kept(document) <= BUDGET
        and (document.revision or "").endswith(f"@budget={BUDGET}")
    )


def test_github_cloud_storage_and_notion_documents_are_held_to_the_budget(
    services: MisbehavingServer,  # noqa: F811
) -> None:
    base = services.url("").rstrip("/")
    repo = GitHubRepo("octo", "kb", "v2", api=base, raw=base)
    tree = load_github_tree_sync(repo, ["README.md"], budget=BUDGET).documents
    bucket = load_gcs_sync("kb-bucket", "faq/", api=base, budget=BUDGET).documents
    page = load_notion_page_sync("abc123", api=base, budget=BUDGET)
    assert len(tree) == len(bucket) == 1
    assert [cut_to_budget(d) for d in (*tree, *bucket, page)] == [True, True, True]
    whole = load_notion_page_sync("abc123", api=base)  # the default budget holds it all
    assert not whole.truncated and whole.revision is None and kept(whole) > BUDGET


def test_an_s3_document_is_held_to_the_budget(moto_url: str) -> None:  # noqa: F811
    s3 = boto3.client("s3", endpoint_url=moto_url)
    s3.create_bucket(Bucket="kb-docs")
    s3.put_object(Bucket="kb-docs", Key="team/onboarding.md", Body=ONBOARDING)
    where = parse_s3("s3://kb-docs/team/")
    [document] = load_s3_sync(where, endpoint_url=moto_url, budget=BUDGET).documents
    [whole] = load_s3_sync(where, endpoint_url=moto_url).documents
    assert not whole.truncated and whole.revision and "@budget" not in whole.revision
    assert cut_to_budget(document) and document.revision == f"{whole.revision}@budget={BUDGET}"


@pytest.mark.parametrize("budget", [-1, 1.5, True, 16_000_001])
def test_a_budget_out_of_range_is_refused_before_any_request(
    services: MisbehavingServer,  # noqa: F811
    budget: object,
) -> None:
    base = services.url("").rstrip("/")
    calls = [
        lambda: load_github_tree_sync(GitHubRepo("octo", "kb", "v2", api=base, raw=base),
                                      budget=budget),  # type: ignore[arg-type]
        lambda: load_gcs_sync("kb-bucket", "faq/", api=base, budget=budget),  # type: ignore[arg-type]
        lambda: load_notion_page_sync("abc123", api=base, budget=budget),  # type: ignore[arg-type]
        lambda: load_s3_sync(parse_s3("s3://kb-docs/team/"), endpoint_url=base,
                             budget=budget),  # type: ignore[arg-type]
    ]  # fmt: skip
    for call in calls:
        with pytest.raises(InvalidArgument, match="budget"):
            call()
    assert services.seen == []


def test_index_add_budget_cuts_remote_documents_and_says_so(
    services: MisbehavingServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    store = str(tmp_path / "index.db")
    sources = ("github:octo/kb@v2", "--glob", "*.md", "notion:abc123", "gs://kb-bucket/faq/")
    code, out, err = run("index", "add", *sources, "--store", store, "--retrieval", "bm25",
                         "--budget", str(BUDGET))  # fmt: skip
    assert code == 0, err
    assert out == "indexed 4 document(s) as 4 chunk(s), 4 of them cut short\n"
    why = f": the text was cut short (budget {BUDGET} characters; --budget keeps more)"
    for name in ("https://github.com/octo/kb/blob/v2/README.md", "notion://abc123",
                 "https://github.com/octo/kb/blob/v2/docs/guide.md",
                 "gs://kb-bucket/faq/returns.md"):  # fmt: skip
        assert f"cut {name}{why}" in err
    code, out, err = run("index", "add", *sources, "--store", store, "--retrieval", "bm25")
    assert (code, out) == (0, "indexed 4 document(s) as 4 chunk(s)\n") and "cut " not in err
    code, out, _ = run("search", "thirty days", "--store", store, "--retrieval", "bm25")
    assert code == 0 and "Within thirty days." in out  # read whole at the default budget


def test_a_folder_s_files_are_held_to_the_budget(tmp_path: Path) -> None:
    (tmp_path / "onboarding.md").write_bytes(ONBOARDING)
    [whole] = load_folder(tmp_path)
    [loaded] = load_folder(tmp_path, budget=BUDGET)
    assert whole.document is not None and loaded.document is not None
    assert cut_to_budget(loaded.document)
    assert loaded.document.revision == f"{whole.document.revision}@budget={BUDGET}"
    assert [f.unchanged for f in load_folder(tmp_path, known={loaded.id: loaded.document.revision},
                                             budget=BUDGET)] == [True]  # fmt: skip
    with pytest.raises(InvalidArgument, match=r"^budget must be"):
        load_folder(tmp_path / "no such folder", budget=-1)  # refused before the folder is read


def test_a_page_of_a_url_list_is_held_to_the_budget(site: MisbehavingServer) -> None:  # noqa: F811
    policy = loopback_policy(resolver=resolve, tls=site.client_tls)
    origin = f"https://{HOST}:{site.port}"
    [whole] = load_urls_sync([site.url("/big")], [origin], policy).documents
    [page] = load_urls_sync([site.url("/big")], [origin], policy, budget=BUDGET).documents
    assert not whole.truncated and kept(whole) > BUDGET
    assert cut_to_budget(page) and page.revision == f"@budget={BUDGET}"  # no ETag of its own
    with pytest.raises(InvalidArgument, match=r"^budget must be"):
        load_urls_sync([site.url("/big")], [origin], policy, budget=1.5)  # type: ignore[arg-type]
    assert len(site.seen) == 2


def test_every_text_budget_is_checked_against_one_range(tmp_path: Path) -> None:
    """A source's ``text_budget``, ``index_add``'s and a loader's ``budget`` go up to the
    most of a page read, and no further; a source's must keep something (from 1)."""
    identity = ClientIdentity("citesift-test", "1.0", "https://example.org/contact")
    source = WebPageSource(identity, limits=PageLimits(text_budget=MAX_SOURCE_CHARS))
    assert source.text_budget == MAX_SOURCE_CHARS
    for name, call in [
        ("text_budget", lambda budget: PageLimits(text_budget=budget)),
        ("budget", lambda budget: index_add([str(tmp_path)], store=tmp_path / "i.db",
                                            budget=budget)),
        ("budget", lambda budget: load_folder(tmp_path, budget=budget)),
    ]:  # fmt: skip
        with pytest.raises(InvalidArgument, match=rf"^{name} must be .* to 16,000,000,"):
            call(MAX_SOURCE_CHARS + 1)
    with pytest.raises(InvalidArgument, match=r"^text_budget must be"):
        PageLimits(text_budget=0)
    assert not (tmp_path / "i.db").exists()
