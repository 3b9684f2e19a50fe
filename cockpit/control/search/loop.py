"""The search's loop: one worker per host, each asking the optimizer for the next
configuration, recording it as a running trial (its derived profile in the same
transaction), running it through the TrialRunner and recording how it ended.

The session is the only record. A trial left `running` by a cockpit that died is taken up
again on its host with the same number, profile and sweep run id (its recorded points are
not run twice); one that is no longer wanted (the budget shrank) is still finished first.
What comes next is plan.py's: a new configuration, or (the budget's last launches) a
relaunch racing the leader against the runner-up until the noise tells them apart. A
configuration the session measured already is reused as a trial, not launched; the same
failure with two configurations (a missing script, SSH down) halts the search.
Pause lets the running trials finish and starts no new one; stop cancels them (each is
left `running`, so the next start resumes it) and stops their servers.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cockpit.control.search.plan import launch_budget, next_launch
from cockpit.control.search.runner import PointCheck, TrialNotConsented, TrialOutcome, TrialRequest, TrialRunner
from cockpit.control.search.study import run_seed
from cockpit.control.search.trial_lines import done_line, trial_line
from cockpit.control.session_port import SessionPort
from cockpit.model.bench.profile_diff import launch_key
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.search.scoring import best_config, better, score_trial
from cockpit.model.search.search import Search, SearchTrial, SpaceValue, TrialStatus
from cockpit.model.search.space import apply_params, command_key, config_key, derived_name
from cockpit.model.session import LaunchProfile, Session, now

if TYPE_CHECKING:
    from cockpit.store.search_lock import SearchRunLock

__all__ = ["SearchEvent", "SearchLoop", "SearchStore", "derive_trial", "environment_failure", "find_search",
           "hosts_of", "measured_before", "measured_untried"]


SearchStore = SessionPort
"""Where the search records (control/session_port.py): the session file's transaction."""


@dataclass(frozen=True, slots=True)
class SearchEvent:
    kind: str  # "started", "state", "ended", "note", "done"
    text: str
    number: int | None = None
    host: str | None = None
    trial: SearchTrial | None = None
    """The finished trial ("ended")."""


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


def _where(session: Session, host: str | None) -> str | None:
    """The host a derived profile names: None for this machine, unless the session has a host
    called `local` (the sandbox's: its run folder and GPU source)."""
    return host if host != "local" or any(h.name == host for h in session.hosts) else None


def _same_profile(session: Session, search: Search, params: dict[str, SpaceValue], host: str | None) -> LaunchProfile | None:
    """The session's launch profile that is this configuration on `host` (numbers normalised:
    `0.8` == `0.80`), or None."""
    base = next(p for p in session.launch if p.id == search.profile)
    full = dict(params)
    if host in search.ports:
        full["--port"] = search.ports[host]
    command, env = apply_params(base, full)
    key = launch_key(command, env, _where(session, host))
    return next((p for p in session.launch if launch_key(p.command, p.env, p.host) == key
                 and p.python == base.python), None)


def measured_before(session: Session, search: Search, params: dict[str, SpaceValue],
                    host: str | None) -> tuple[str, list[str]] | None:
    """A profile of this configuration whose sweep of the search's workload the session holds
    already (every concurrency, or the one that counts): (profile id, its benchmark ids).
    None: not measured, so it is launched."""
    profile = _same_profile(session, search, params, host)
    sweep = next((w for w in session.sweeps if w.id == search.sweep), None)
    if profile is None or sweep is None:
        return None
    mine = {b for t in search.trial for b in t.benchmarks}
    benches = [b for b in session.benchmarks if b.profile == profile.id and b.sweep == sweep.id and b.id not in mine]
    wanted = {search.at_concurrency} if search.at_concurrency else set(sweep.concurrencies)
    if not benches or not wanted <= {b.concurrency for b in benches}:
        return None
    return profile.id, [b.id for b in benches]


def measured_untried(session: Session, search: Search, host: str | None) -> dict[str, SpaceValue] | None:
    """A configuration of the space not tried yet that the session measured already (reused
    for free, before any launch is spent); None: none."""
    from cockpit.control.search.model_sampler import MAX_GRID
    from cockpit.control.search.study import tried_keys
    from cockpit.model.search.space import grid, normalise

    mine = {b for t in search.trial for b in t.benchmarks}
    swept = {b.profile for b in session.benchmarks if b.sweep == search.sweep and b.id not in mine}
    base = next((p for p in session.launch if p.id == search.profile), None)
    if base is None or not swept or search.grid_size() > MAX_GRID:
        return None
    where = _where(session, host)
    known = {(command_key(p.command), tuple(sorted(p.env.items()))) for p in session.launch
             if p.id in swept and p.host == where and p.python == base.python}
    tried = tried_keys(search)
    for params in grid(search):
        if config_key(search, params) in tried:
            continue
        full: dict[str, SpaceValue] = dict(params)
        if host in search.ports:
            full["--port"] = search.ports[host]
        command, env = apply_params(base, full)
        if (command_key(command), tuple(sorted(env.items()))) in known and measured_before(
                session, search, params, host) is not None:
            return normalise(search, params)
    return None


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
    where = _where(session, host)
    same = _same_profile(session, search, params, host)
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


def reuse_trial(editor: SessionEditor, *, search_id: str, number: int, params: dict[str, SpaceValue],
                host: str | None, profile_id: str, bench_ids: list[str]) -> SearchTrial:
    """Add trial `number` from the session's own measurement of this configuration (nothing
    launched). One transaction."""
    session = editor.session
    search = find_search(session, search_id)
    score = score_trial(session, search, bench_ids)
    trial = SearchTrial(number=number, params=params, profile=profile_id, host=host, benchmarks=bench_ids,
                        status=TrialStatus.OK if score.value is not None else TrialStatus.FAILED, value=score.value,
                        constraints=score.constraints, power_mean_w=score.power_mean_w,
                        ttft_p99_ms=score.ttft_p99_ms, output_tok_per_joule=score.output_tok_per_joule,
                        values=score.values, reused=True,
                        error=None if score.value is not None else "its recorded sweep has no figure",
                        started=now(), ended=now())

    def change(s: Session) -> None:
        current = find_search(s, search_id)
        _replace_search(s, current.model_copy(update={"trial": [*current.trial, trial]}))
    editor.apply(f"search {search_id} trial {number} reused profile {profile_id}'s recorded sweep (not launched)",
                 change, kind="search.trial", ref=search_id)
    return trial


_NUMBERS = re.compile(r"0x[0-9a-f]+|\d+(\.\d+)?", re.IGNORECASE)


def environment_failure(trial: SearchTrial, phase: str | None) -> str | None:
    """The failure's signature when it may be the environment's, not the configuration's: a
    launch that never started (SSH down, no such script) or a server that died before it
    began to load (a traceback outside its start: an import, a missing file). None: a
    configuration's own crash (while loading, capturing, serving) or a success."""
    if trial.status is TrialStatus.FAILED and trial.error and "not started" in trial.error:
        return _NUMBERS.sub("N", trial.error)
    if trial.status is TrialStatus.CRASHED and phase == "starting" and trial.error:
        return _NUMBERS.sub("N", trial.error)
    return None


def not_the_configuration(editor: SessionEditor, search_id: str, numbers: list[int], why: str) -> None:
    """Record trials as FAILED (not crashed): the same failure came with different configurations,
    so it is the environment's and the crash model must not learn it."""
    def change(s: Session) -> None:
        current = find_search(s, search_id)
        trials = [t.model_copy(update={"status": TrialStatus.FAILED, "value": None,
                                       "error": f"not the configuration's: {t.error or why}"})
                  if t.number in numbers else t for t in current.trial]
        _replace_search(s, current.model_copy(update={"trial": trials}))
    editor.apply(f"search {search_id} trials {', '.join(map(str, numbers))}: {why}", change, kind="search.trial",
                 ref=search_id)


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
        "output_tok_per_joule": score.output_tok_per_joule, "ready_s": outcome.ready_s, "ended": now(),
        "values": score.values if value is not None else []})

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
                 on_event: Callable[[SearchEvent], object] | None = None, lock: SearchRunLock | None = None,
                 seed: int | None = None) -> None:
        """`lock`: the search's run lock (store/search_lock.py) the caller took already; None:
        `run` takes it, and runs nothing while another runner holds it. `seed`: the sampler's
        (None: the search's `seed`, else a fresh one for this run)."""
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
        self.seed = seed if seed is not None else run_seed(find_search(store.session, search_id))
        self.halted: str | None = None
        """Why the search stopped before its budget: a failure that is not the configuration's."""
        self._env_failures: dict[str, list[SearchTrial]] = {}

    # -- control ----------------------------------------------------------------------------
    def pause(self) -> None:
        self.running.clear()
        self.on_event(SearchEvent("note", "paused: the running trials finish, no new one starts"))

    def resume(self) -> None:
        self.running.set()
        self.on_event(SearchEvent("note", "resumed"))

    @property
    def stopped(self) -> bool:
        """`stop()` was called (Ctrl-C, the screen's stop): the trials left were not run."""
        return self._stopped

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
        # trials this run ended (a new one, or one a killed cockpit left running and this run finished)
        before = _ended(find_search(self.store.session, self.search_id))
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
        if self.halted is not None:
            self.errors.append(self.halted)
        finished = not self._stopped and self.halted is None
        line = done_line(self.store.session, search) if finished else \
            "stopped" if self._stopped else f"halted: {self.halted}"
        if _ended(search) > before:  # where the person left off is the search's end, not its last start
            end = done_line(self.store.session, search, short=True) if finished else f"ended, {line}"
            text = f"search {search.id} ({search.name}) {end}"
            try:
                await self.store.apply(lambda e: e.record_activity(text))
            except Exception as exc:  # noqa: BLE001  # the trials are saved; this line is said, not lost
                self.errors.append(f"the search's end not recorded as the last action: {exc}")
            search = find_search(self.store.session, self.search_id)
        self.on_event(SearchEvent("done", line))
        return search

    async def _next(self, host: str | None) -> SearchTrial | None:
        """The trial this host runs next, recorded as running (None: nothing left to do)."""
        async with self._choose:
            search = find_search(self.store.session, self.search_id)
            left = next((t for t in search.trial if t.status is TrialStatus.RUNNING and t.host == host
                         and t.number not in self._claimed), None)
            if left is not None:  # a trial a cockpit died in: finish it
                self._claimed.add(left.number)
                return left
            while True:
                free = measured_untried(self.store.session, search, host)
                if free is not None:  # measured already: a trial for free, before any launch
                    params, repeat_of = free, None
                else:
                    step = await asyncio.to_thread(next_launch, search, launch_budget(search, self.budget),
                                                   seed=self.seed)
                    if step is None:
                        return None
                    params, repeat_of = step.params, step.repeat_of
                measured = None if repeat_of is not None else measured_before(self.store.session, search, params, host)
                if measured is None:
                    break
                number = max((t.number for t in search.trial), default=-1) + 1
                profile_id, benches = measured
                reused: SearchTrial = await self.store.apply(
                    functools.partial(reuse_trial, search_id=self.search_id, number=number, params=params, host=host,
                                      profile_id=profile_id, bench_ids=benches))
                self.on_event(SearchEvent("ended", trial_line(self.store.session, find_search(
                    self.store.session, self.search_id), reused), number, host, reused))
                search = find_search(self.store.session, self.search_id)
            number = max((t.number for t in search.trial), default=-1) + 1
            trial: SearchTrial = await self.store.apply(
                lambda e: derive_trial(e, self.search_id, number, params, host, repeat_of))
            self._claimed.add(number)
            return trial

    async def _worker(self, host: str | None) -> None:
        while not self._stopped and self.halted is None:
            await self.running.wait()
            if self._stopped or self.halted is not None:
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
                               search.sweep, host, f"{search.id}-t{trial.number}", tuple(self.hosts),
                               port=self.store)
        outcome = await self.runner.run_trial(request, check_point=self._pruner(trial), on_state=on_state)
        self.live.pop(host, None)
        done: SearchTrial = await self.store.apply(lambda e: finish_trial(e, self.search_id, trial.number, outcome))
        signature = environment_failure(done, outcome.phase)
        if signature is not None:
            done = await self._environment(done, signature)
        session = self.store.session
        self.on_event(SearchEvent("ended", trial_line(session, find_search(session, self.search_id), done, host),
                                  trial.number, host, done))

    async def _environment(self, done: SearchTrial, signature: str) -> SearchTrial:
        """The second time one failure comes with another configuration, it is the environment's:
        both trials are recorded as failed (no crash learnt) and the search halts."""
        search = find_search(self.store.session, self.search_id)
        seen = self._env_failures.setdefault(signature, [])
        others = [t for t in seen if config_key(search, t.params) != config_key(search, done.params)]
        seen.append(done)
        if not others:
            return done
        numbers = [others[0].number, done.number]
        why = (f"the same failure with different configurations (trials {numbers[0]} and {numbers[1]}): "
               f"{done.error}; not the configuration's (a missing script, SSH down, an error before the "
               "server loads): fix it and run again")
        await self.store.apply(lambda e: not_the_configuration(e, self.search_id, numbers, why))
        self.halted = why
        after = find_search(self.store.session, self.search_id).trial_of(done.number)
        return after if after is not None else done

    def _pruner(self, trial: SearchTrial) -> PointCheck:
        """Stop a trial whose point falls under `prune_below` of the best trial's at that concurrency."""
        def check(concurrency: int, fields: dict[str, Any]) -> str | None:
            session = self.store.session
            search = find_search(session, self.search_id)
            lead = best_config(search)
            sweep = next((s for s in session.sweeps if s.id == search.sweep), None)
            if lead is None or search.prune_below <= 0 or trial.repeat_of is not None or search.multi:
                return None  # (several objectives: a slow point may be the frugal one the front needs)
            if sweep is None or concurrency >= max(sweep.concurrencies):
                return None  # the last point: nothing left to save
            value = fields.get(search.primary)
            theirs = [b for b in session.benchmarks if b.id in lead.first.benchmarks and b.concurrency == concurrency]
            if value is None or not theirs:
                return None
            best = getattr(theirs[0], search.primary, None)
            if best is None or not best:
                return None
            share = float(value) / float(best)
            low = share < search.prune_below if better(search, 2.0, 1.0) else share > 1 / search.prune_below
            if low:
                return (f"pruned at c={concurrency}: {float(value):g} against {float(best):g} of trial "
                        f"{lead.first.number} ({share:.0%})")
            return None
        return check


def _ended(search: Search) -> int:
    return sum(1 for t in search.trial if t.status is not TrialStatus.RUNNING)
