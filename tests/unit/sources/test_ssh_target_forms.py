"""The TARGET strings of `cockpit tail` / `cockpit log` / `gpus` / `topo`: every accepted
form is read as meant, and a string that could be read two ways is refused with a message
that names the accepted forms (it used to read `host:2299:/path` as port 22, path `2299:/path`)."""

import pytest

from cockpit.sources.log.tail import ResumableTail
from cockpit.sources.log.tail_sources import LocalFile, RemoteFile
from cockpit.sources.transport.ssh_target import HOST_FORMS, PATH_FORMS, SshTarget, split_remote_path


@pytest.mark.parametrize(
    ("spec", "user", "host", "port", "path"),
    [
        ("gpu1:/var/log/sglang.log", None, "gpu1", None, "/var/log/sglang.log"),
        ("me@gpu1:logs/x.log", "me", "gpu1", None, "logs/x.log"),  # relative to the login's home
        ("me@gpu1:2299:/var/log/x.log", "me", "gpu1", 2299, "/var/log/x.log"),
        ("gpu1:2299:~/logs/x.log", None, "gpu1", 2299, "~/logs/x.log"),
        ("gpu1:/data/run:3.log", None, "gpu1", None, "/data/run:3.log"),  # a colon inside the path
        ("gpu1:./2299", None, "gpu1", None, "./2299"),  # the way to name a file called 2299
        ("ssh://me@gpu1:2222/var/x.log", "me", "gpu1", 2222, "/var/x.log"),
        ("ssh://gpu1/var/x.log", None, "gpu1", None, "/var/x.log"),
        ("[::1]:/var/x.log", None, "::1", None, "/var/x.log"),
        ("me@[fe80::1]:2200:/var/x.log", "me", "fe80::1", 2200, "/var/x.log"),
    ],
)
def test_remote_file_forms(spec, user, host, port, path):
    source = ResumableTail.parse_source(spec)
    assert isinstance(source, RemoteFile)
    assert (source.target.user, source.target.host, source.target.port, source.path) == (user, host, port, path)


@pytest.mark.parametrize("spec", ["/var/log/x.log", "logs/x.log", "./a:b", "gpu1:", "x.log"])
def test_local_forms(spec):
    assert ResumableTail.parse_source(spec) == LocalFile(spec)


def test_an_existing_local_file_with_a_colon_stays_local(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gpu1:2299").write_text("")
    assert split_remote_path("gpu1:2299") is None


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("gpu1:2299", "port 2299 with no path, or the file '2299'?"),
        ("[::1]:2200", "port 2200 with no path, or the file '2200'?"),
        ("me@gpu1:2299:logs/x.log", "port 2299 and the relative path 'logs/x.log', or the file '2299:logs/x.log'?"),
        ("gpu1:2299:", "port 2299 and no path"),
        ("gpu1:ssh:/var/x.log", "'ssh' is not a port"),
        ("gpu1:99999:/var/x.log", "'99999' is not a port (1 to 65535)"),
        ("gpu1:0:/var/x.log", "'0' is not a port (1 to 65535)"),
        ("ssh://gpu1", "names no file"),
        ("ssh://gpu1/", "names no file"),
    ],
)
def test_ambiguous_or_broken_paths_are_refused_naming_the_forms(spec, why):
    with pytest.raises(ValueError) as info:
        ResumableTail.parse_source(spec)
    assert why in str(info.value) and str(info.value).endswith(f"accepted: {PATH_FORMS}")


@pytest.mark.parametrize(
    ("spec", "user", "host", "port"),
    [
        ("gpu1", None, "gpu1", None),
        ("me@gpu1:2222", "me", "gpu1", 2222),
        ("[::1]:2200", None, "::1", 2200),
        ("fe80::1", None, "fe80::1", None),  # a bare IPv6 address: no port
        ("ssh://me@gpu1:2222", "me", "gpu1", 2222),
    ],
)
def test_host_forms(spec, user, host, port):
    t = SshTarget.parse(spec)
    assert (t.user, t.host, t.port) == (user, host, port)


@pytest.mark.parametrize("spec", ["gpu1:2299:", "gpu1:22:/x", "a:b:c", "gpu1:x", "gpu1:70000", "me@", "a b"])
def test_bad_hosts_are_refused_naming_the_forms(spec):
    with pytest.raises(ValueError) as info:
        SshTarget.parse(spec)
    assert str(info.value).endswith(f"accepted: {HOST_FORMS}")


def test_the_tail_command_says_why_and_exits_2():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "cockpit", "tail", "me@gpu1:2299:logs/x.log"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("cockpit tail: 'me@gpu1:2299:logs/x.log': port 2299 and the relative path")
    assert done.stderr.count("\n") == 1 and PATH_FORMS in done.stderr
