"""The handoff names the hosts: where each runs (SSH target or this machine), the log it
follows, its GPU source and metrics endpoint, with secrets masked and hostile text inert."""

from __future__ import annotations

from paths import EXAMPLE_SESSION

from cockpit.model.session import Host, Session
from cockpit.store.handoff.markdown import render_handoff
from cockpit.store.toml_store import load_session


def _hosts_part(text: str) -> list[str]:
    start = text.index("## Hosts\n")
    end = text.find("\n## ", start + 1)
    return [line for line in text[start: end if end > 0 else None].splitlines() if line.startswith("| ")]


def test_every_host_of_the_example_has_a_row() -> None:
    rows = _hosts_part(render_handoff(load_session(EXAMPLE_SESSION)))
    assert rows[0] == "| host | ssh | log | GPUs | metrics | about |"
    assert [r.split(" | ")[0] for r in rows[2:]] == ["| local", "| proxmox", "| lxc"]
    assert "| local | this machine | — | none | — | the local machine |" in rows


def test_a_remote_host_shows_its_target_log_gpus_and_metrics_with_secrets_masked() -> None:
    s = Session(title="t", hosts=[
        Host(name="gpu1", ssh="bob@gpu1:2222", jump="bastion", gpu_source="nvidia-smi",
             log_command="docker logs -f sglang --token s3cr3t-value | grep -v x",
             metrics_url="http://admin:hunter2@127.0.0.1:30000/metrics", description="H200 box\x1b[31m"),
        Host(name="here", log_path="/var/log/sglang.log", gpu_source="nvml"),
    ])
    text = render_handoff(s)
    rows = _hosts_part(text)
    gpu1 = next(r for r in rows if r.startswith("| gpu1 |"))
    assert "`bob@gpu1:2222` via `bastion`" in gpu1
    assert "docker logs -f sglang --token [REDACTED] \\| grep -v x" in gpu1
    assert "| nvidia-smi |" in gpu1
    assert "`http://[REDACTED]@127.0.0.1:30000/metrics`" in gpu1
    assert "s3cr3t" not in text and "hunter2" not in text and "\x1b" not in text
    assert "| here | this machine | `/var/log/sglang.log` | nvml | — |" in rows[3]
