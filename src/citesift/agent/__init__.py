"""The research agent: a task in, a JSON answer out, every field cited to the evidence
that states it, and traceable to the span of the stored page it came from."""

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
from citesift.agent.research import aresearch, research
from citesift.agent.run import Answer, run_research
from citesift.agent.tokens import clip, model_tokens
from citesift.agent.tools import PageReader, Tools, WebPages, WikipediaSearch
from citesift.agent.trace import FieldTrace, RunTrace, SpanTrace, trace

__all__ = [
    "Action",
    "ActionError",
    "Answer",
    "Budget",
    "Candidate",
    "Effort",
    "Evidence",
    "Extract",
    "FieldSource",
    "FieldTrace",
    "Finish",
    "Map",
    "PageReader",
    "RunTrace",
    "Scrape",
    "Search",
    "SpanTrace",
    "Tools",
    "View",
    "WebPages",
    "WikipediaSearch",
    "aresearch",
    "clip",
    "field_sources",
    "model_tokens",
    "parse_action",
    "parse_reply",
    "research",
    "run_research",
    "system_prompt",
    "token_limits",
    "trace",
    "user_prompt",
]
