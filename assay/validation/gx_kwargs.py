"""Great Expectations' kwargs lookups with one expectation configuration each, not one per key.

GX 1.x builds an expectation's ``configuration`` (a pydantic ``.dict()`` of the whole
expectation, then an ``ExpectationConfiguration``) every time the property is read, and its
kwargs lookups read it once per key: ``_get_domain_kwargs`` and ``_get_success_kwargs`` once
per domain or success key, ``_get_success_kwarg`` twice, and ``_get_runtime_kwargs`` calls all
three for each expectation as it builds the metric graph. On a 960-case dataset that was about
3,000 configurations for 38 expectations, half of the validate step's CPU.

The methods below are GX's own, each reading ``self.configuration`` once and looking every key
up in that one: the same values from the same expectation, in the same order, so the validation
and its results are unchanged. Nothing is kept between calls (a configuration read now is the
expectation as it is now). They replace GX's only on the GX versions whose methods they were
written from (``PATCHED_VERSIONS``); on any other the originals stay.
"""

from __future__ import annotations

import logging
from typing import Any

PATCHED_VERSIONS = frozenset({"1.24.1"})
_logger = logging.getLogger("great_expectations.expectations.expectation")
_installed = False


def _kwargs_with_defaults(expectation: Any, kwargs: dict[str, Any], keys: Any) -> dict[str, Any]:
    return {key: kwargs.get(key, expectation._get_default_value(key)) for key in keys}  # noqa: SLF001


def _get_domain_kwargs(self: Any) -> dict[str, Any]:
    # GX's check for missing domain kwargs cannot fail: the dict is built from domain_keys.
    return _kwargs_with_defaults(self, self.configuration.kwargs, self.domain_keys)


def _get_success_kwargs(self: Any) -> dict[str, Any]:
    kwargs = self.configuration.kwargs
    domain_kwargs = _kwargs_with_defaults(self, kwargs, self.domain_keys)
    success_kwargs = _kwargs_with_defaults(self, kwargs, self.success_keys)
    success_kwargs.update(domain_kwargs)
    return success_kwargs


def _success_kwarg_in(self: Any, kwargs: dict[str, Any], key: str, default: Any = None) -> Any:
    if key in kwargs:
        return kwargs[key]
    field = self.__fields__.get(key)
    if field is not None:
        return field.default if not field.required else default
    _logger.warning(f'_get_success_kwarg called with key "{key}", but it is not a known field of {type(self).__name__}')
    return default


def _get_success_kwarg(self: Any, key: str, default: Any = None) -> Any:
    return _success_kwarg_in(self, self.configuration.kwargs, key, default)


def _get_runtime_kwargs(self: Any, runtime_configuration: dict | None = None) -> dict[str, Any]:
    from great_expectations.expectations.expectation_configuration import parse_result_format

    if not _lookups_are_ours(type(self)):  # a subclass with its own lookups: GX's way, through them
        return _GX_GET_RUNTIME_KWARGS(self, runtime_configuration)
    runtime_configuration = runtime_configuration or {}
    kwargs = self.configuration.kwargs
    success_kwargs = _kwargs_with_defaults(self, kwargs, self.success_keys)
    success_kwargs.update(_kwargs_with_defaults(self, kwargs, self.domain_keys))
    runtime_kwargs = {key: runtime_configuration.get(key, _success_kwarg_in(self, kwargs, key)) for key in self.runtime_keys}
    runtime_kwargs.update(success_kwargs)
    runtime_kwargs["result_format"] = parse_result_format(runtime_kwargs["result_format"])
    return runtime_kwargs


def _lookups_are_ours(cls: type) -> bool:
    return all(getattr(cls, name) is LOOKUPS[name] for name in ("_get_domain_kwargs", "_get_success_kwargs", "_get_success_kwarg"))


_GX_LOOKUPS: dict[str, Any] = {}  # GX's own, kept by install(): for uninstall() and for subclasses
_GX_GET_RUNTIME_KWARGS: Any = None  # that override a lookup

LOOKUPS = {
    "_get_domain_kwargs": _get_domain_kwargs,
    "_get_success_kwargs": _get_success_kwargs,
    "_get_success_kwarg": _get_success_kwarg,
    "_get_runtime_kwargs": _get_runtime_kwargs,
}


def install(gx: Any) -> bool:
    """Replace GX's kwargs lookups on ``Expectation`` (once per process); False when this GX
    version is not one they were written from, and GX's own stay."""
    global _installed, _GX_GET_RUNTIME_KWARGS
    if _installed:
        return True
    if getattr(gx, "__version__", None) not in PATCHED_VERSIONS:
        return False
    from great_expectations.expectations.expectation import Expectation

    _GX_LOOKUPS.update({name: Expectation.__dict__[name] for name in LOOKUPS})
    _GX_GET_RUNTIME_KWARGS = _GX_LOOKUPS["_get_runtime_kwargs"]
    for name, method in LOOKUPS.items():
        setattr(Expectation, name, method)
    _installed = True
    return True


def uninstall() -> None:
    """GX's own lookups back (tests compare a validation both ways)."""
    global _installed
    if not _installed:
        return
    from great_expectations.expectations.expectation import Expectation

    for name, method in _GX_LOOKUPS.items():
        setattr(Expectation, name, method)
    _installed = False
