"""Another local user, for tests of links and locks they could plant (tests run as root)."""

from __future__ import annotations

import grp
import pwd
import subprocess
from pathlib import Path

USER = GROUP = "cockpitsave"


def other_user() -> tuple[int, int]:
    """(uid, gid) of a second local user and its group, made on first use. Two test workers
    may make them at once: "already exists" (status 9) is the other one's success."""
    try:
        grp.getgrnam(GROUP)
    except KeyError:
        done = subprocess.run(["groupadd", GROUP], capture_output=True, text=True)
        assert done.returncode in (0, 9), done.stderr
    try:
        pwd.getpwnam(USER)
    except KeyError:
        done = subprocess.run(["useradd", "--no-create-home", "--gid", GROUP, "--shell", "/usr/sbin/nologin",
                               USER], capture_output=True, text=True)
        assert done.returncode in (0, 9), done.stderr
    return pwd.getpwnam(USER).pw_uid, grp.getgrnam(GROUP).gr_gid


def plant_link(user: tuple[int, int], link: Path, target: Path | str) -> None:
    """The other user puts a symlink at LINK (in a folder they may write)."""
    subprocess.run(["ln", "-s", str(target), str(link)], check=True, user=user[0], group=user[1])
    assert link.is_symlink() and link.lstat().st_uid == user[0]
