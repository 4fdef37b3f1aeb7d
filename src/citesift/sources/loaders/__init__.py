"""Loaders: documents brought in from where a team keeps them, each with its attribution
(URI, title, revision, time read): local files and folders, and remote services."""

from citesift.sources.loaders.files import LoadedFile, gone, load_file, load_folder
from citesift.sources.loaders.folder import folder_files

__all__ = ["LoadedFile", "folder_files", "gone", "load_file", "load_folder"]
