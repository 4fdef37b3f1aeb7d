"""Loaders: documents brought in from where a team keeps them, each with its attribution
(URI, title, revision, time read): local files and folders, a list of web addresses, and
remote services (GitHub, Notion, Confluence, Google Drive, Dropbox, OneDrive, S3, Cloud
Storage), each module one service."""

from citesift.sources.loaders.confluence import load_confluence_page
from citesift.sources.loaders.dropbox import load_dropbox
from citesift.sources.loaders.files import LoadedFile, gone, load_file, load_folder
from citesift.sources.loaders.folder import folder_files
from citesift.sources.loaders.gcs import load_gcs
from citesift.sources.loaders.gdrive import load_google_drive_file
from citesift.sources.loaders.github import GitHubRepo, load_github_file, load_github_tree
from citesift.sources.loaders.limits import LoadLimits
from citesift.sources.loaders.notion import load_notion_page
from citesift.sources.loaders.onedrive import load_onedrive
from citesift.sources.loaders.results import Loaded, LoadFailure
from citesift.sources.loaders.s3 import S3Prefix, load_s3
from citesift.sources.loaders.urls import load_urls

__all__ = [
    "GitHubRepo",
    "LoadFailure",
    "LoadLimits",
    "Loaded",
    "LoadedFile",
    "S3Prefix",
    "folder_files",
    "gone",
    "load_confluence_page",
    "load_dropbox",
    "load_file",
    "load_folder",
    "load_gcs",
    "load_github_file",
    "load_github_tree",
    "load_google_drive_file",
    "load_notion_page",
    "load_onedrive",
    "load_s3",
    "load_urls",
]
