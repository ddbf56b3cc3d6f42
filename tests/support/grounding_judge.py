"""A scripted LLM judge for the grounding prompts, answering over the loopback OpenAI server.

It reads the framed data out of the prompt as a real judge would: claims are the answer's
sentences; a claim is unsupported when it contains one of ``unsupported``; a chunk is
irrelevant when it contains one of ``irrelevant``; the answer relevancy is 4. Any other prompt
gets the schema-filling reply.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from tests.support.openai_server import schema_filling_responder

_DATA = re.compile(r"<<<DATA (\w+)>>>\n(.*?)\n<<<END DATA \1>>>", re.S)


def framed(body: dict[str, Any]) -> dict[str, str]:
    """The prompt's framed fields, by name (``<<<DATA name>>>`` … ``<<<END DATA name>>>``)."""
    text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    return dict(_DATA.findall(text))


@dataclass
class GroundingResponder:
    unsupported: tuple[str, ...] = ()
    irrelevant: tuple[str, ...] = ()
    seen: list[dict[str, str]] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> str:
        data = framed(body)
        self.seen.append(data)
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        if set(data) == {"question", "answer"} and '"claims": [' in prompt:
            claims = [s.strip() for s in re.split(r"(?<=[.!?])\s+", data["answer"]) if s.strip()]
            return json.dumps({"claims": claims})
        if "claim" in data:
            bad = any(word in data["claim"] for word in self.unsupported)
            return json.dumps({"reason": "scripted", "supported": not bad})
        if "context" in data:
            bad = any(word in data["context"] for word in self.irrelevant)
            return json.dumps({"reason": "scripted", "relevant": not bad})
        if set(data) == {"question", "answer"}:
            return json.dumps({"reason": "scripted", "answer_relevancy": 4})
        return schema_filling_responder(body)
