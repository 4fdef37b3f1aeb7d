"""GitHub: one file of a repository at a ref, read from raw.githubusercontent.com, or the
files of a repository's tree (the git trees API, blobs only) chosen by a pattern, read one
after another up to ``max_files``. A token comes from ``GITHUB_TOKEN`` unless given."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import pathspec

from citesift.errors import LOAD_FAILED, LoadError, invalid
from citesift.extract.html import DEFAULT_BUDGET, checked_budget
from citesift.model import SourceDocument
from citesift.net import run_sync
from citesift.sources.loaders.documents import loaded_document
from citesift.sources.loaders.limits import LoadLimits, file_count, token_from
from citesift.sources.loaders.results import Loaded, Progress, answer_json, download_each, fetched

LABEL = "github"
API = "https://api.github.com"
RAW = "https://raw.githubusercontent.com"
TOKEN_VARIABLE = "GITHUB_TOKEN"
_NAME = re.compile(r"[A-Za-z0-9_.-]+")
_REF = re.compile(r"[^\s~^:?*\[\\]+")


@dataclass(frozen=True, slots=True)
class GitHubRepo:
    """A repository and a ref, and where its APIs answer (GitHub's by default)."""

    owner: str
    repo: str
    ref: str = "HEAD"
    token: str | None = field(default=None, repr=False)
    api: str = API
    raw: str = RAW

    def __post_init__(self) -> None:
        for name in ("owner", "repo"):
            value = getattr(self, name)
            if not isinstance(value, str) or not _NAME.fullmatch(value) or value in (".", ".."):
                raise invalid(name, value, "a GitHub owner or repository name")
        if not isinstance(self.ref, str) or not _REF.fullmatch(self.ref) or ".." in self.ref:
            raise invalid("ref", self.ref, "a branch, tag or commit")
        object.__setattr__(self, "token", token_from(self.token, TOKEN_VARIABLE))

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}


def parse_github(spec: str) -> GitHubRepo:
    """``github:owner/repo@ref`` (``@ref`` optional) as the repository it names."""
    match = re.fullmatch(r"github:([^/@]+)/([^/@]+)(?:@(.+))?", spec)
    if match is None:
        raise invalid("source", spec, "github:owner/repo or github:owner/repo@ref")
    return GitHubRepo(match.group(1), match.group(2), match.group(3) or "HEAD")


async def load_github_file(
    repo: GitHubRepo,
    path: str,
    limits: LoadLimits | None = None,
    revision: str | None = None,
    budget: int = DEFAULT_BUDGET,
) -> SourceDocument:
    """The file at ``path`` of ``repo`` at its ref, its text held to ``budget``
    characters; its metadata names owner, repo, path and ref, its revision is the blob's
    sha when known, else the ref."""
    if not isinstance(path, str) or not path.strip("/"):
        raise invalid("path", path, "a file's path in the repository")
    budget = checked_budget(budget)
    limits = limits or LoadLimits()
    endpoint = limits.endpoint(repo.raw, LABEL)
    segments = "/".join(quote(part, safe="") for part in path.strip("/").split("/"))
    target = f"{quote(repo.owner)}/{quote(repo.repo)}/{quote(repo.ref, safe='')}/{segments}"
    answer = await fetched(endpoint, target, repo.headers())
    uri = f"https://github.com/{repo.owner}/{repo.repo}/blob/{repo.ref}/{path.strip('/')}"
    meta = {"owner": repo.owner, "repo": repo.repo, "path": path, "ref": repo.ref}
    return loaded_document(answer.body, uri, path, site="github.com",
                           revision=revision or repo.ref, metadata=meta,
                           budget=budget)  # fmt: skip


async def load_github_tree(
    repo: GitHubRepo,
    patterns: Sequence[str] = (),
    max_files: float = 100,
    limits: LoadLimits | None = None,
    progress: Progress | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Loaded:
    """The files of ``repo``'s tree at its ref that ``patterns`` name (``.gitignore``
    wildcards; none: every file), the first ``max_files`` of them, read one at a time
    (``progress`` hears each), each held to ``budget`` characters of text; ``max_files``
    of 0 or less reads nothing and asks nothing."""
    count, budget = file_count(max_files), checked_budget(budget)
    limits = limits or LoadLimits()
    chosen = pathspec.GitIgnoreSpec.from_lines(list(patterns)) if patterns else None
    if count == 0:
        return Loaded()
    endpoint = limits.endpoint(repo.api, LABEL)
    target = f"repos/{quote(repo.owner)}/{quote(repo.repo)}/git/trees/{quote(repo.ref, safe='')}"
    answer = await fetched(endpoint, target + "?recursive=1", repo.headers())
    blobs = [
        (entry["path"], entry.get("sha"))
        for entry in _entries(answer_json(answer, LABEL))
        if chosen is None or chosen.match_file(entry["path"])
    ][:count]

    async def download(blob: tuple[str, Any]) -> SourceDocument:
        sha = blob[1] if isinstance(blob[1], str) else None
        return await load_github_file(repo, blob[0], limits, sha, budget)

    return await download_each(LABEL, blobs, download, lambda blob: blob[0], progress)


def _entries(tree: object) -> list[dict[str, Any]]:
    """The blobs of a git trees answer; ``LoadError`` when it is not one."""
    entries = tree.get("tree") if isinstance(tree, dict) else None
    if not isinstance(entries, list):
        raise LoadError(LOAD_FAILED, f"{LABEL}: failed to read/parse response body")
    return [
        e
        for e in entries
        if isinstance(e, dict) and e.get("type") == "blob" and isinstance(e.get("path"), str)
    ]


def load_github_tree_sync(
    repo: GitHubRepo,
    patterns: Sequence[str] = (),
    max_files: float = 100,
    limits: LoadLimits | None = None,
    progress: Progress | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Loaded:
    """``load_github_tree`` from synchronous code."""
    return run_sync(load_github_tree(repo, patterns, max_files, limits, progress, budget))
