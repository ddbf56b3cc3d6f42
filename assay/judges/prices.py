"""What a lean-transport judge's tokens cost: litellm's price map, without importing litellm when
the map cannot price the model.

litellm's import is 3.5-4 CPU seconds here. The lean transport needs it only for the price of
its model, looked up once per model; imported on the first reply, it held the interpreter for
those seconds in the middle of the judge calls (a 960-call step at 50 ms spent more time
importing litellm than waiting for replies). Most lean endpoints serve models no price map
knows (a local vLLM or SGLang server, a gateway's alias), for which litellm's answer is 0.

So ``price_of`` first reads the cost map litellm itself would load (the package's bundled JSON,
which ``assay.offline`` makes litellm use, ``LITELLM_LOCAL_MODEL_COST_MAP``) and answers 0 when
no entry, alias or fallback rule of it could match the model's name; anything that could
(however loosely: a name contained in an entry or an entry's name in it, a rule's pattern) is
priced by litellm as before. Once litellm is imported in the process, it answers every lookup:
it is cheap then, and it sees prices registered at run time (``litellm.register_model``).

One lookup per model per process (``lookup``), started before the first call is sent and shared
by every call, on a thread of its own: never a thread per call racing for litellm's import.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import sys
import threading
from concurrent.futures import Future
from functools import cache
from pathlib import Path
from typing import Any

BUNDLED_MAP = "model_prices_and_context_window_backup.json"
Prices = tuple[float, float]  # (USD per input token, USD per output token)

_lookups: dict[str, Future[Prices]] = {}
_lookups_lock = threading.Lock()


def _after_fork_in_child() -> None:
    """A forked child keeps the lookups that finished; one under way had its thread in the
    parent only (it would never finish here), and its lock may have been held by another thread."""
    global _lookups_lock
    for model in [m for m, future in _lookups.items() if not future.done()]:
        del _lookups[model]
    _lookups_lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


def lookup(model: str) -> Future[Prices]:
    """The price lookup for ``model``: started on first request, shared by every later one."""
    with _lookups_lock:
        found = _lookups.get(model)
        if found is not None:
            return found
        future: Future[Prices] = Future()
        _lookups[model] = future
    threading.Thread(target=_resolve, args=(model, future), name="assay-price-lookup", daemon=True).start()
    return future


async def prices(model: str) -> Prices:
    """(USD per input token, USD per output token) for ``model``; (0, 0) if unpriced."""
    future = lookup(model)
    return future.result() if future.done() else await asyncio.wrap_future(future)


def _resolve(model: str, future: Future[Prices]) -> None:
    try:
        found = price_of(model)
    except Exception:  # the shortcut failed unexpectedly: litellm's answer (which never raises)
        found = _litellm_price_of(model)
    future.set_result(found)  # always set: every waiting reply depends on it


def price_of(model: str) -> Prices:
    if "litellm" not in sys.modules and unpriced_in_bundled_map(model):
        return 0.0, 0.0
    return _litellm_price_of(model)


def litellm_module() -> Any:
    """Import litellm on first use and keep its support banner out of our logs."""
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def _litellm_price_of(model: str) -> Prices:
    try:
        litellm = litellm_module()
        input_cost, _ = litellm.cost_per_token(model=model, prompt_tokens=1_000_000, completion_tokens=0)
        _, output_cost = litellm.cost_per_token(model=model, prompt_tokens=0, completion_tokens=1_000_000)
        return float(input_cost) / 1_000_000, float(output_cost) / 1_000_000
    except Exception:  # unknown/local model: no price, which is fine
        return 0.0, 0.0


def unpriced_in_bundled_map(model: str) -> bool:
    """True only if litellm, loading its bundled map, could not match ``model`` to any entry,
    alias or fallback rule; False whenever unsure (another map in use, a map not found)."""
    if os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP", "").lower() != "true":
        return False  # litellm would fetch a remote map, which may know more models
    names, patterns = _bundled_map()
    if not names:
        return False
    full = model.lower()
    bare = full.split("/", 1)[1] if "/" in full else full
    if any(pattern.search(full) or pattern.search(bare) for pattern in patterns):
        return False
    # Substrings both ways cover litellm's prefix and suffix handling (provider prefixes,
    # ``ft:`` names, dated versions) with room to spare: a near miss only costs the import.
    return not any(bare in name or name.rsplit("/", 1)[-1] in bare for name in names)


def read_price_map() -> None:
    """Read the bundled map's names now (~0.1 CPU s): the resident worker does it before it forks
    its runs, so a judged run's first lookup does not take the interpreter from its first calls."""
    if os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP", "").lower() == "true":
        _bundled_map()


@cache
def _bundled_map() -> tuple[tuple[str, ...], tuple[re.Pattern[str], ...]]:
    """The bundled map's entry names and aliases (lower-case) and its fallback rules' patterns;
    empty when it cannot be read."""
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return (), ()
    try:
        data = json.loads((Path(next(iter(spec.submodule_search_locations))) / BUNDLED_MAP).read_bytes())
        names: set[str] = set()
        patterns = []
        for name, entry in data.items():
            if name == "fallback_generalizations":
                for rule in entry.get("rules") or []:
                    patterns.append(re.compile(rule["pattern"], re.IGNORECASE))
                continue
            names.add(name.lower())
            if isinstance(entry, dict):
                names.update(str(alias).lower() for alias in entry.get("aliases") or [])
        return tuple(names), tuple(patterns)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, re.error):
        return (), ()
