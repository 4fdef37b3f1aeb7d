"""The research agent: a task in, a JSON answer out, every field cited to the evidence
that states it."""

from citesift.agent.actions import (
    Action,
    ActionError,
    Extract,
    Finish,
    Map,
    Scrape,
    Search,
    parse_action,
    parse_reply,
)
from citesift.agent.budget import Budget, Effort, token_limits
from citesift.agent.evidence import Evidence
from citesift.agent.prompt import Candidate, View, system_prompt, user_prompt
from citesift.agent.provenance import FieldSource, field_sources
from citesift.agent.tokens import clip, model_tokens

__all__ = [
    "Action",
    "ActionError",
    "Budget",
    "Candidate",
    "Effort",
    "Evidence",
    "Extract",
    "FieldSource",
    "Finish",
    "Map",
    "Scrape",
    "Search",
    "View",
    "clip",
    "field_sources",
    "model_tokens",
    "parse_action",
    "parse_reply",
    "system_prompt",
    "token_limits",
    "user_prompt",
]
