"""Judges that decide a claim from its candidate sentences: offline, NLI, LLM."""

from citesift.verify.judges.base import ClaimCheck, Judge, Label
from citesift.verify.judges.llm import LLMJudge
from citesift.verify.judges.nli import NLIJudge, NliModel
from citesift.verify.judges.nli_models import load_nli
from citesift.verify.judges.offline import OfflineJudge
from citesift.verify.judges.trained import TrainedJudge

__all__ = [
    "ClaimCheck",
    "Judge",
    "LLMJudge",
    "Label",
    "NLIJudge",
    "NliModel",
    "OfflineJudge",
    "TrainedJudge",
    "load_nli",
]
