"""`host:port:/path` end to end: the port is the one connected to and the path the one read
(it used to be port 22 and the file `PORT:/path`)."""

from sshd_fixture import ALIAS


def test_tail_reads_the_path_after_the_port(sshd):
    d = sshd.make_dir("portpath")
    log = d / "server.log"
    log.write_text("first line\nsecond line\n")
    log.chmod(0o644)
    done = sshd.cockpit("tail", f"{ALIAS}:{sshd.port}:{log}", "--from-start", "--stop-after-bytes", "23",
                        timeout=60)
    assert (done.returncode, done.stdout) == (0, "first line\nsecond line\n"), done.stderr


def test_the_port_given_wins_over_the_config(sshd):
    # nothing listens on port 1: refused, which proves the spec's port was used, not the alias's
    done = sshd.cockpit("gpus", "--once", f"{ALIAS}:1", "--timeout", "5", timeout=60)
    assert done.returncode == 1
    assert done.stderr == f"cockpit: {ALIAS}:1: connection refused (is sshd running? right port?)\n"
