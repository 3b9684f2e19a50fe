"""PromQL over Prometheus's HTTP API: instant (`/api/v1/query`) and range (`/api/v1/query_range`).

The fleet reads many hosts through the Prometheus a team already runs, not one SSH
connection per host. Credentials come from the environment variable the session names
(`auth_env`): `user:password` is sent as basic auth, anything else as a bearer token. The
value is read at each request and never kept or written anywhere.

Every failure is a `PrometheusError` with a `kind` (unreachable, timeout, unauthorized,
no-credentials, bad-query, http, bad-answer) and one sentence for the pane, never a stall:
each request has its own timeout.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from cockpit.sources.transport.http_get import HttpAnswer, HttpGetError, request_direct, split_url

JSON = "application/json"


class PrometheusError(Exception):
    """A query failed; `kind` says how, the message says it in one sentence."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class PromSeries:
    """One series of an answer: its labels and its (unix time, value) points, oldest first."""

    labels: Mapping[str, str]
    points: tuple[tuple[float, float], ...]

    @property
    def value(self) -> float:
        """The last point's value (an instant query has one)."""
        return self.points[-1][1]


@dataclass(frozen=True, slots=True)
class PromTarget:
    """An active scrape target (`/api/v1/targets`): its labels and scrape interval."""

    labels: Mapping[str, str]
    scrape_interval_s: float | None
    health: str = "unknown"


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|y|w|d|h|m|s)")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0, "y": 31536000.0}


def duration_s(text: str) -> float | None:
    """A Prometheus duration (`15s`, `1m30s`, `500ms`) in seconds; None when it is not one."""
    text = text.strip().strip("'\"")
    parts = _DURATION.findall(text)
    if not text or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _UNIT_S[u] for n, u in parts)


def config_scrape_intervals(yaml_text: str) -> list[float]:
    """Every `scrape_interval:` of a Prometheus config (`/api/v1/status/config`'s YAML), the
    global one included; no YAML library: the key is one line, its value one duration."""
    out = []
    for m in re.finditer(r"^\s*scrape_interval:\s*(\S+)\s*$", yaml_text, re.MULTILINE):
        if (v := duration_s(m[1])) is not None:
            out.append(v)
    return out


def auth_header(secret: str) -> str:
    """`user:password` -> basic auth; anything else is a bearer token."""
    if ":" in secret:
        return "Basic " + base64.b64encode(secret.encode("utf-8")).decode("ascii")
    return f"Bearer {secret}"


class PrometheusClient:
    """A Prometheus server's query API (from this machine)."""

    def __init__(self, url: str, *, auth_env: str | None = None, timeout_s: float = 5.0,
                 environ: Mapping[str, str] | None = None) -> None:
        self.url = url.rstrip("/")
        self.auth_env = auth_env
        self.timeout_s = timeout_s
        self._environ = environ  # tests pass their own; None reads os.environ at each request

    async def query(self, promql: str, at: float | None = None) -> list[PromSeries]:
        params = {"query": promql}
        if at is not None:
            params["time"] = f"{at:.3f}"
        return await self._get("/api/v1/query", params)

    async def query_range(self, promql: str, start: float, end: float, step_s: float) -> list[PromSeries]:
        return await self._get("/api/v1/query_range", {
            "query": promql, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{max(step_s, 0.001):g}"})

    async def targets(self) -> list[PromTarget]:
        """The active targets with their scrape intervals (Prometheus 2.x, 3.x)."""
        data = await self._get_data("/api/v1/targets", {"state": "active"})
        out = []
        for t in data.get("activeTargets") or () if isinstance(data, dict) else ():
            if isinstance(t, dict):
                labels: dict[object, object] = t["labels"] if isinstance(t.get("labels"), dict) else {}
                interval = duration_s(str(t["scrapeInterval"])) if t.get("scrapeInterval") else None
                out.append(PromTarget({str(k): str(v) for k, v in labels.items()}, interval, str(t.get("health", ""))))
        return out

    async def config_yaml(self) -> str:
        """The loaded configuration (`/api/v1/status/config`), as Prometheus gives it (YAML)."""
        data = await self._get_data("/api/v1/status/config", {})
        return str(data.get("yaml") or "") if isinstance(data, dict) else ""

    def _headers(self) -> dict[str, str]:
        if not self.auth_env:
            return {}
        env = os.environ if self._environ is None else self._environ
        secret = env.get(self.auth_env)
        if not secret:
            raise PrometheusError("no-credentials", f"${self.auth_env} (auth_env) is not set in cockpit's "
                                  "environment: export it with user:password or a bearer token")
        return {"Authorization": auth_header(secret)}

    async def _get(self, path: str, params: Mapping[str, str]) -> list[PromSeries]:
        return self._series(await self._get_data(path, params))

    async def _get_data(self, path: str, params: Mapping[str, str]) -> object:
        """The answer's `data`, or a PrometheusError saying why there is none."""
        headers = self._headers()
        # POST would allow longer queries; the fleet's fit a GET, which proxies let through
        parts = split_url(f"{self.url}{path}?{urlencode(params)}")
        try:
            answer = await request_direct(parts, timeout_s=self.timeout_s, headers=headers, accept=JSON)
        except TimeoutError:
            raise PrometheusError("timeout", f"no answer from {self.url} within {self.timeout_s:g} s") from None
        except ConnectionRefusedError:
            raise PrometheusError("unreachable", f"{parts.authority} refused the connection: is Prometheus "
                                  "running there?") from None
        except HttpGetError as exc:
            raise PrometheusError("bad-answer", f"{self.url}: {exc}") from None
        except OSError as exc:
            raise PrometheusError("unreachable", f"cannot reach {self.url}: {exc.strerror or exc}") from None
        return self._data(answer)

    def _data(self, answer: HttpAnswer) -> object:
        if answer.status == 401:
            if self.auth_env:
                why = f"Prometheus refused the credentials in ${self.auth_env} (HTTP 401)"
            else:
                why = ("Prometheus asks for credentials (HTTP 401): name an environment variable with "
                       "auth_env = \"NAME\" in [[prometheus]] and export it")
            raise PrometheusError("unauthorized", why)
        if answer.status == 403:
            raise PrometheusError("unauthorized", "Prometheus refused access (HTTP 403)")
        try:
            doc: object = json.loads(answer.body)
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            raise PrometheusError("bad-answer" if answer.status == 200 else "http",
                                  f"{self.url} answered HTTP {answer.status} {answer.reason} without "
                                  "Prometheus JSON: is this the Prometheus URL?".replace("  ", " "))
        if doc.get("status") != "success":
            error = str(doc.get("error") or f"HTTP {answer.status}")
            kind = "bad-query" if doc.get("errorType") in ("bad_data", "execution") else "http"
            raise PrometheusError(kind, f"Prometheus: {error}")
        return doc.get("data") or {}

    @staticmethod
    def _series(data: object) -> list[PromSeries]:
        if not isinstance(data, dict):
            raise PrometheusError("bad-answer", "Prometheus answered a query without a result")
        rtype, result = data.get("resultType"), data.get("result") or []
        if rtype == "scalar":
            return [PromSeries({}, ((float(result[0]), float(result[1])),))]
        out = []
        for item in result:
            labels = item.get("metric") or {}
            if "value" in item:
                pts: tuple[tuple[float, float], ...] = ((float(item["value"][0]), float(item["value"][1])),)
            else:
                pts = tuple((float(t), float(v)) for t, v in item.get("values") or ())
            out.append(PromSeries(labels, pts))
        return out
