"""What a stop question says: which server stops, how long it has been up, and that loading
it again takes minutes (a large model: 10+). Plain words for ConfirmStopScreen."""

from __future__ import annotations

from datetime import datetime


def uptime(started: str | None, now: datetime | None = None) -> str | None:
    """"2h13m" from the run's `started` stamp (%Y-%m-%dT%H:%M:%S%z); None when unknown."""
    if not started:
        return None
    try:
        begun = datetime.strptime(started, "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        return None
    seconds = max(0, int(((now or datetime.now(begun.tzinfo)) - begun).total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes = rest // 60
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m" if minutes else f"{seconds}s"


def stop_question(host: str, status: object, *, starting: str | None = None, now: datetime | None = None
                  ) -> tuple[str, str]:
    """(title, what is lost) for stopping the session's server on `host` (`status`: its
    ServerStatus, None when it could not be asked); `starting`: a restart's profile."""
    running = getattr(status, "profile_id", None) or "the server"
    up = uptime(getattr(status, "started", None), now)
    pid = getattr(status, "pid", None)
    about = ", ".join(part for part in (f"pid {pid}" if pid else "", f"up {up}" if up else "") if part)
    server = f"the server{f' ({about})' if about else ''}"
    if starting is None:
        title = f"Stop {running} on host {host}?"
        lost = f"{server} stops; loading it again takes minutes (a large model: 10+ min)"
    elif starting == running:
        title = f"Restart {starting} on host {host}?"
        lost = f"{server} stops and loads again; that takes minutes (a large model: 10+ min)"
    else:
        title = f"Restart on host {host}: stop {running} and start {starting}?"
        lost = f"{running}: {server} stops; {starting} loads in its place, which takes minutes"
    if status is None:
        lost += "\n(the host did not answer: whether a server runs there is not known)"
    return title, lost
