"""The search's loop: one worker per host, each asking the optimizer for the next
configuration, recording it as a running trial (its derived profile in the same
transaction), running it through the TrialRunner and recording how it ended.

The session is the only record. A trial left `running` by a cockpit that died is taken up
again on its host with the same number, profile and sweep run id (its recorded points are
not run twice); one that is no longer wanted (the budget shrank) is still finished first.
After the budget, `repeats` relaunches of the leading configuration measure the noise.
Pause lets the running trials finish and starts no new one; stop cancels them (each is
left `running`, so the next start resumes it) and stops their servers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from cockpit.control.search.runner import TrialNotConsented, TrialOutcome, TrialRequest, TrialRunner
from cockpit.control.search.study import propose
from cockpit.model.bench.profile_diff import launch_key
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.search.search import Search, SearchTrial, SpaceValue, TrialStatus
from cockpit.model.search.search_reuse import measured_points
from cockpit.model.search.search_scoring import best_config, better, score_trial
from cockpit.model.search.search_space import apply_params, derived_name
from cockpit.model.session import Session, now

__all__ = ["SearchEvent", "SearchLoop", "SearchStore", "derive_trial", "find_search", "hosts_of"]


class SearchStore(Protocol):
    @property
    def session(self) -> Session: ...

    async def apply(self, change: Callable[[SessionEditor], Any], *, actor: str | None = None) -> Any: ...


@dataclass(frozen=True, slots=True)
class SearchEvent:
    kind: str  # "started", "state", "ended", "note", "done"
    text: str
    number: int | None = None
    host: str | None = None


def find_search(session: Session, ref: str) -> Search:
    found = [s for s in session.searches if s.id == ref] or [s for s in session.searches if s.name == ref]
    if len(found) != 1:
        known = ", ".join(f"{s.id} ({s.name})" for s in session.searches) or "none; cockpit add search ..."
        raise ValueError(f"{'several searches are' if found else 'no search is'} named {ref!r} (searches: {known})")
    return found[0]


def hosts_of(session: Session, search: Search, given: str | None = None) -> list[str | None]:
    """The hosts that run trials: `given` (a,b), else the search's, else the base profile's
    (None: this machine). ValueError naming an unknown host."""
    if given:
        names = [h.strip() for h in given.split(",") if h.strip()]
    else:
        base = next(p for p in session.launch if p.id == search.profile)
        names = list(search.hosts) or [base.host or "local"]
    known = {h.name for h in session.hosts} | {"local"}
    bad = [n for n in names if n not in known]
    if bad:
        raise ValueError(f"no host {bad[0]!r} (hosts: {', '.join(sorted(known))})")
    # "local" is this machine; a session host of that name (the sandbox's) is kept by name, for
    # its run folder and GPU source
    named = {h.name for h in session.hosts}
    return [None if n == "local" and n not in named else n for n in names]


def _replace_search(session: Session, search: Search) -> None:
    session.searches = [search if s.id == search.id else s for s in session.searches]


def derive_trial(editor: SessionEditor, search_id: str, number: int, params: dict[str, SpaceValue],
                 host: str | None, repeat_of: int | None = None) -> SearchTrial:
    """Add trial `number` as running, with its derived launch profile (reused when the same
    command, env and host exist already). One transaction."""
    session = editor.session
    search = find_search(session, search_id)
    base = next(p for p in session.launch if p.id == search.profile)
    full = dict(params)
    if host in search.ports:
        full["--port"] = search.ports[host]
    command, env = apply_params(base, full)
    where = host if host != "local" or any(h.name == host for h in session.hosts) else None
    # the same launch after normalising values (0.80 is 0.8): a configuration the session has is reused
    key = launch_key(command, env, where)
    same = next((p for p in session.launch if launch_key(p.command, p.env, p.host) == key
                 and p.python == base.python), None)
    profile_id = same.id if same is not None else editor.add_record(
        "launch", name=derived_name(search, base, params), command=command, env=env, host=where,
        python=base.python, notes=f"search {search.id} trial {number}")
    trial = SearchTrial(number=number, params=params, profile=profile_id, host=host, repeat_of=repeat_of,
                        started=now())

    def change(s: Session) -> None:
        current = find_search(s, search_id)
        _replace_search(s, current.model_copy(update={"trial": [*current.trial, trial]}))
    editor.apply(f"search {search_id} trial {number} started on {host}: {derived_name(search, base, params)}",
                 change, kind="search.trial", ref=search_id)
    return trial


def finish_trial(editor: SessionEditor, search_id: str, number: int, outcome: TrialOutcome) -> SearchTrial:
    session = editor.session
    search = find_search(session, search_id)
    old = search.trial_of(number)
    assert old is not None
    score = score_trial(session, search, outcome.benchmarks)
    value = score.value if outcome.status in (TrialStatus.OK, TrialStatus.PRUNED) else None
    new = old.model_copy(update={
        "status": outcome.status, "value": value, "constraints": score.constraints, "benchmarks": outcome.benchmarks,
        "error": outcome.error, "power_mean_w": score.power_mean_w, "ttft_p99_ms": score.ttft_p99_ms,
        "output_tok_per_joule": score.output_tok_per_joule, "ready_s": outcome.ready_s, "ended": now()})

    def change(s: Session) -> None:
        current = find_search(s, search_id)
        _replace_search(s, current.model_copy(update={"trial": [new if t.number == number else t
                                                                 for t in current.trial]}))
    shown = f"{value:g}" if value is not None else outcome.error or "-"
    editor.apply(f"search {search_id} trial {number} {outcome.status}: {shown}", change, kind="search.trial",
                 ref=search_id)
    return new


class SearchLoop:
    def __init__(self, store: SearchStore, session_path: str, search_id: str, runner: TrialRunner,
                 hosts: list[str | None], *, budget: int | None = None,
                 on_event: Callable[[SearchEvent], Any] | None = None, lock: Any = None) -> None:
        """`lock`: the search's run lock (store/search_lock.py) the caller took already; None:
        `run` takes it, and runs nothing while another runner holds it."""
        self.store = store
        self.session_path = session_path
        self.search_id = search_id
        self.runner = runner
        self.hosts = hosts
        self.budget = budget
        self.on_event = on_event or (lambda event: None)
        self.running = asyncio.Event()
        self.running.set()
        self._choose = asyncio.Lock()
        self._tasks: list[asyncio.Task[None]] = []
        self._stopped = False
        self._claimed: set[int] = set()
        self.errors: list[str] = []
        """Why a host's worker stopped early (one line each)."""
        self.refused: list[str] = []
        """Trials not run because the person's seal does not cover them (one line each)."""
        self.live: dict[str | None, str] = {}
        """host -> the running trial's latest state line."""
        self.lock = lock
        self.busy: str | None = None
        """Why nothing ran: another runner holds the search (who, where, since)."""

    # -- control ----------------------------------------------------------------------------
    def pause(self) -> None:
        self.running.clear()
        self.on_event(SearchEvent("note", "paused: the running trials finish, no new one starts"))

    def resume(self) -> None:
        self.running.set()
        self.on_event(SearchEvent("note", "resumed"))

    def stop(self) -> None:
        self._stopped = True
        self.running.set()
        for task in self._tasks:
            task.cancel()

    @property
    def paused(self) -> bool:
        return not self.running.is_set()

    # -- the run ----------------------------------------------------------------------------
    async def run(self) -> Search:
        from cockpit.store.search_lock import SearchBusy, take_search_lock

        own = None
        if self.lock is None:
            try:
                own = self.lock = take_search_lock(self.session_path, self.search_id)
            except (SearchBusy, OSError) as exc:  # one runner per search: its trials are its own
                self.busy = str(exc) if isinstance(exc, SearchBusy) else f"cannot take the search's lock: {exc}"
                self.on_event(SearchEvent("done", f"not run: {self.busy}"))
                return find_search(self.store.session, self.search_id)
            if (note := own.note()) is not None:
                self.on_event(SearchEvent("note", note))
        try:
            return await self._run_all()
        finally:
            if own is not None:
                own.release()
                self.lock = None

    async def _run_all(self) -> Search:
        self._tasks = [asyncio.create_task(self._worker(host)) for host in self.hosts]
        results = await asyncio.gather(*self._tasks, return_exceptions=True)
        for host, result in zip(self.hosts, results, strict=True):
            if isinstance(result, TrialNotConsented):  # nothing ran; the next start asks the person
                self.refused.append(str(result))
                self.on_event(SearchEvent("note", f"{host or 'local'} stopped: {result}", host=host))
            elif isinstance(result, Exception):  # a record not saved, a session that stopped loading: said
                self.errors.append(f"{host or 'local'}: {result or type(result).__name__}")
                self.on_event(SearchEvent("note", f"{host or 'local'} stopped: {result}", host=host))
        search = find_search(self.store.session, self.search_id)
        best = best_config(search)
        self.on_event(SearchEvent("done", "stopped" if self._stopped else
                                  f"done: {sum(1 for t in search.trial if t.status is not TrialStatus.RUNNING)} "
                                  f"trials, best {'trial ' + str(best.first.number) if best else 'none yet'}"))
        return search

    def _limit(self, search: Search) -> int:
        return self.budget if self.budget is not None else search.trials

    async def _next(self, host: str | None) -> SearchTrial | None:
        """The trial this host runs next, recorded as running (None: nothing left to do)."""
        async with self._choose:
            search = find_search(self.store.session, self.search_id)
            left = next((t for t in search.trial if t.status is TrialStatus.RUNNING and t.host == host
                         and t.number not in self._claimed), None)
            if left is not None:  # a trial a cockpit died in: finish it
                self._claimed.add(left.number)
                return left
            firsts = [t for t in search.trial if t.repeat_of is None]
            repeat_of: int | None = None
            if len(firsts) >= self._limit(search):
                lead = best_config(search)
                repeats = [t for t in search.trial if t.repeat_of is not None]
                if lead is None or len(repeats) >= search.repeats:
                    return None
                repeat_of, params = lead.first.number, dict(lead.first.params)
            else:
                chosen = await asyncio.to_thread(propose, search)
                if chosen is None:
                    return None
                params = chosen
            number = max((t.number for t in search.trial), default=-1) + 1
            trial: SearchTrial = await self.store.apply(
                lambda e: derive_trial(e, self.search_id, number, params, host, repeat_of))
            self._claimed.add(number)
            return trial

    async def _worker(self, host: str | None) -> None:
        while not self._stopped:
            await self.running.wait()
            if self._stopped:
                return
            trial = await self._next(host)
            if trial is None:
                return
            await self._run(trial, host)

    async def _run(self, trial: SearchTrial, host: str | None) -> None:
        search = find_search(self.store.session, self.search_id)
        label = f"trial {trial.number} on {host or 'local'}"
        self.on_event(SearchEvent("started", f"{label}: {trial.profile}", trial.number, host))

        def on_state(text: str) -> None:
            self.live[host] = text
            self.on_event(SearchEvent("state", text, trial.number, host))

        request = TrialRequest(self.session_path, search.id, trial.number, trial.profile or search.profile,
                               search.sweep, host, f"{search.id}-t{trial.number}", tuple(self.hosts))
        measured = None if trial.repeat_of is not None else measured_points(self.store.session, search, request.profile_id)
        if measured is not None:  # the session measured this configuration already: not launched again
            self.on_event(SearchEvent("note", f"{label}: {request.profile_id} has every point of sweep {search.sweep} "
                                              f"already ({', '.join(measured)}): reused, not launched", trial.number,
                                      host))
            outcome = TrialOutcome(TrialStatus.OK, benchmarks=measured)
        else:
            outcome = await self.runner.run_trial(request, check_point=self._pruner(trial), on_state=on_state)
        self.live.pop(host, None)
        done: SearchTrial = await self.store.apply(lambda e: finish_trial(e, self.search_id, trial.number, outcome))
        shown = f"{done.value:g}" if done.value is not None else done.error or ""
        self.on_event(SearchEvent("ended", f"{label} {done.status}: {shown}", trial.number, host))

    def _pruner(self, trial: SearchTrial) -> Callable[[int, dict[str, Any]], str | None]:
        """Stop a trial whose point falls under `prune_below` of the best trial's at that concurrency."""
        def check(concurrency: int, fields: dict[str, Any]) -> str | None:
            session = self.store.session
            search = find_search(session, self.search_id)
            lead = best_config(search)
            sweep = next((s for s in session.sweeps if s.id == search.sweep), None)
            if lead is None or search.prune_below <= 0 or trial.repeat_of is not None:
                return None
            if sweep is None or concurrency >= max(sweep.concurrencies):
                return None  # the last point: nothing left to save
            value = fields.get(search.objective)
            theirs = [b for b in session.benchmarks if b.id in lead.first.benchmarks and b.concurrency == concurrency]
            if value is None or not theirs:
                return None
            best = getattr(theirs[0], search.objective, None)
            if best is None or not best:
                return None
            share = float(value) / float(best)
            low = share < search.prune_below if better(search, 2.0, 1.0) else share > 1 / search.prune_below
            if low:
                return (f"pruned at c={concurrency}: {float(value):g} against {float(best):g} of trial "
                        f"{lead.first.number} ({share:.0%})")
            return None
        return check
