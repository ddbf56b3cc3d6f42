"""A loopback OpenLineage backend for tests, and a strict check of events against the client's models.

``LineageReceiver`` answers ``POST /api/v1/lineage`` like Marquez does (200, nothing kept but the
events); ``hang=True`` makes a backend that accepts the connection and never answers.
``check_event`` rebuilds a received event with the official client's attrs models (unknown or
missing fields fail) and compares the rebuilt event's JSON with what arrived, so each standard
facet must also carry its own ``_schemaURL``; assay's own facets are checked with the JSON
Schema the package ships (``assay/lineage/openlineage_facets.json``).
"""

from __future__ import annotations

import json
import socket
import threading
import types
from enum import Enum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union, get_args, get_origin

import attr


class LineageReceiver:
    def __init__(self, hang: bool = False) -> None:
        self.events: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self._release = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if hang:
                    receiver._release.wait(60)  # never answers while the test runs
                    return
                receiver.paths.append(self.path)
                receiver.events.append(json.loads(body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> LineageReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._release.set()
        self.server.shutdown()
        self.server.server_close()


def closed_port_url() -> str:
    """A loopback URL where nothing listens (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# -- checking events against the client's models -------------------------------------------------
def _standard_facets() -> dict[str, type]:
    from openlineage.client.facet_v2 import (
        error_message_run,
        job_type_job,
        parent_run,
        processing_engine_run,
        schema_dataset,
        source_code_location_job,
        tags_run,
    )

    return {
        "parent": parent_run.ParentRunFacet, "processing_engine": processing_engine_run.ProcessingEngineRunFacet,
        "errorMessage": error_message_run.ErrorMessageRunFacet, "tags": tags_run.TagsRunFacet,
        "jobType": job_type_job.JobTypeJobFacet, "sourceCodeLocation": source_code_location_job.SourceCodeLocationJobFacet,
        "schema": schema_dataset.SchemaDatasetFacet,
    }


def _assay_facet_validator() -> Any:
    import jsonschema

    from assay.lineage.openlineage import FACETS_SCHEMA, FACETS_SCHEMA_FILE

    schema = json.loads(FACETS_SCHEMA_FILE.read_text(encoding="utf-8"))
    assert schema["$id"] == FACETS_SCHEMA

    def check(facet: dict[str, Any]) -> None:
        url = facet.get("_schemaURL", "")
        assert url.startswith(FACETS_SCHEMA + "#/$defs/"), url
        name = url.rpartition("/")[2]
        jsonschema.validate(facet, {**schema, "$ref": f"#/$defs/{name}"})
        assert not set(facet) - set(schema["$defs"][name]["properties"]) - {"_producer", "_schemaURL"}, facet

    return check


def check_event(event: dict[str, Any]) -> None:
    """AssertionError (or TypeError/ValueError from the models) unless ``event`` is a RunEvent the
    client's models describe exactly."""
    from openlineage.client.event_v2 import RunEvent
    from openlineage.client.serde import Serde

    rebuilt = _model(RunEvent, event, _standard_facets(), _assay_facet_validator())
    assert json.loads(Serde.to_json(rebuilt)) == _without_custom(event), "the event does not round-trip"


def _without_custom(value: Any) -> Any:
    """``value`` without assay's own facets (checked against their own schema instead)."""
    if isinstance(value, dict):
        return {k: _without_custom(v) for k, v in value.items() if not k.startswith("assay_")}
    if isinstance(value, list):
        return [_without_custom(v) for v in value]
    return value


def _model(cls: type, data: Any, facets: dict[str, type], custom: Any) -> Any:
    assert isinstance(data, dict), f"{cls.__name__}: expected an object, got {data!r}"
    attr.resolve_types(cls)
    fields = {f.name: f for f in attr.fields(cls)}
    unknown = set(data) - set(fields)
    assert not unknown, f"{cls.__name__} has no fields {sorted(unknown)}"
    kwargs = {}
    for name, value in data.items():
        field = fields[name]
        if not field.init:
            continue  # schemaURL / _schemaURL: set by the class, compared by the round trip
        if name in ("facets", "inputFacets", "outputFacets"):
            kwargs[field.alias] = _facets(value, facets, custom)
        else:
            kwargs[field.alias] = _value(field.type, value, facets, custom)
    return cls(**kwargs)


def _facets(value: dict[str, Any], facets: dict[str, type], custom: Any) -> dict[str, Any]:
    out = {}
    for key, facet in value.items():
        if key.startswith("assay_"):
            custom(facet)
            continue
        assert key in facets, f"unexpected facet {key!r}"
        out[key] = _model(facets[key], facet, facets, custom)
    return out


def _value(tp: Any, value: Any, facets: dict[str, type], custom: Any) -> Any:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        if value is None:
            return None
        choices = [a for a in get_args(tp) if a is not type(None)]
        return _value(choices[0], value, facets, custom)
    if origin is list:
        assert isinstance(value, list), value
        return [_value(get_args(tp)[0], v, facets, custom) for v in value]
    if isinstance(tp, type) and issubclass(tp, Enum):
        return tp(value)
    if isinstance(tp, type) and attr.has(tp):
        return _model(tp, value, facets, custom)
    if tp in (str, int, bool, float):
        assert isinstance(value, tp), f"expected {tp.__name__}, got {value!r}"
    return value
