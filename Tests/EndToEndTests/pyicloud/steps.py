"""The step runner conformance.py and invites.py share: each step runs at once, and a failure is recorded in the
script's output instead of ending the run, so the Swift test sees every step that raised."""

from __future__ import annotations

import traceback
from typing import Any


def recorder(out: dict[str, Any]):
    """A decorator factory: @step("name") runs the function now; an exception becomes an entry of out["errors"]
    with the exception, its cause, the payload pyicloud attached and a short trace."""

    def step(name: str):
        def run(fn):
            try:
                fn()
            except Exception as exc:  # noqa: BLE001 - every failure is reported, none is fatal to the run
                payload = getattr(exc, "payload", None)
                cause = exc.__cause__
                out["errors"].append({
                    "step": name,
                    "error": f"{type(exc).__name__}: {exc}",
                    "cause": f"{type(cause).__name__}: {cause}" if cause else None,
                    "payload": payload if isinstance(payload, (dict, list, str)) else repr(payload),
                    "trace": traceback.format_exc(limit=4),
                })
            return fn

        return run

    return step
