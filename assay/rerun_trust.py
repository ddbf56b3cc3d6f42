"""Whether ``assay rerun`` may execute a recorded spec that runs code or calls out.

A manifest is written by whoever can write the store. Its spec can name a Python function to
call in-process (``target: {function: "os:system"}``), a URL to post every case to, and the
endpoints that receive provider keys. Without ``ASSAY_SIGNING_KEY`` anyone who can write the
store can re-anchor an edited manifest (recompute its root hash), so a rerun of such a spec
needs the manifest's signature verified with the key, or the user's explicit ``--trust-spec``;
otherwise it refuses in one line. A recorded replay that calls nothing of the kind reruns as
before (docs/security.md, docs/operations.md).
"""

from __future__ import annotations

from typing import Any

TRUST_FLAG = "--trust-spec"


def calls_out(spec: Any) -> list[str]:
    """What a rerun of ``spec`` would run or contact at a place the spec itself names."""
    found = []
    target = spec.target
    if target is not None and target.function:
        found.append(f"calls the Python function {target.function}")
    if target is not None and target.url:
        found.append(f"posts every case to {target.url}")
    if spec.replay == "live" and target is None and spec.generator.api_base:
        found.append(f"sends the generator's key to {spec.generator.api_base}")
    for judge in spec.jury.judges if spec.jury else []:
        if judge.api_base:
            found.append(f"sends judge {judge.model}'s key to {judge.api_base}")
    return found


def refusal(run_id: str, spec: Any, signature_verified: bool, trusted: bool) -> str | None:
    """The one line ``assay rerun`` ends with when it must not execute ``spec``; None if it may."""
    found = calls_out(spec)
    if not found or signature_verified or trusted:
        return None
    return (f"refusing to rerun {run_id}: its recorded spec {'; '.join(found)}, and its manifest is not signed "
            f"with ASSAY_SIGNING_KEY, so anyone who can write the store could have put that there; "
            f"set ASSAY_SIGNING_KEY to the key that signed it, or pass {TRUST_FLAG} if you trust the spec")


def key_variables(spec: Any) -> list[str]:
    """The environment variables whose values a run of ``spec`` sends: its key and header variables."""
    names = [spec.generator.api_key_env]
    names += [judge.api_key_env for judge in (spec.jury.judges if spec.jury else [])]
    if spec.target is not None:
        names += [source.rpartition(" ")[2] for source in spec.target.headers.values()]
    return [name for name in names if name]
