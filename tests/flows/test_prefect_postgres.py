"""Production path: a Prefect server on PostgreSQL runs a scheduled suite deployment through a
process worker. A throwaway cluster (initdb in a temp folder, loopback, a random password) is
made here; `make postgres` (run by .ci/run) installs Debian's postgresql when it is missing."""

from __future__ import annotations

import glob
import json
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.flows.test_prefect_server import BIN, ROOT, api, free_port, prefect, run_worker_once, wait_healthy
from tests.support.cli import cli

pytestmark = pytest.mark.slow


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


class Cluster:
    """initdb + pg_ctl as a non-root user (postgres refuses to run as root)."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.password = secrets.token_urlsafe(24)
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="assay-pg-"))
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root and there is no 'postgres' user to run the server as")
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
            self.owner = owner
        self.data = self.dir / "data"

    def run(self, *args: str, env: dict[str, str] | None = None) -> None:
        out = subprocess.run([*self.as_user, *args], capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 0, f"{args[0]} failed:\n{out.stdout}\n{out.stderr}"

    def start(self) -> str:
        pwfile = self.dir / "pw"
        pwfile.write_text(self.password)
        pwfile.chmod(0o600)
        if self.as_user:
            os.chown(pwfile, self.owner.pw_uid, self.owner.pw_gid)
        try:
            self.run(str(self.bindir / "initdb"), "-D", str(self.data), "-U", "assay", f"--pwfile={pwfile}",
                     "--auth=scram-sha-256", "-E", "UTF8", "--locale=C")
        finally:
            pwfile.unlink()
        self.run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "server.log"), "-w",
                 "-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1", "start")
        env = {**os.environ, "PGPASSWORD": self.password}
        self.run(str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "assay", "prefect", env=env)
        return f"postgresql+asyncpg://assay:{self.password}@127.0.0.1:{self.port}/prefect"

    def query(self, sql: str) -> str:
        out = subprocess.run(
            [str(self.bindir / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "assay", "-d", "prefect", "-tAc", sql],
            capture_output=True, text=True, env={**os.environ, "PGPASSWORD": self.password}, timeout=60,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    def stop(self) -> None:
        subprocess.run([*self.as_user, str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres_server(tmp_path_factory):
    bindir = postgres_bin()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed and could not be: run `make postgres` (apt-get install postgresql, as root)")
    cluster = Cluster(bindir)
    try:
        database_url = cluster.start()
        home = tmp_path_factory.mktemp("prefect-pg-home")
        port = free_port()
        api = f"http://127.0.0.1:{port}/api"
        client_env = {
            **os.environ, "PREFECT_HOME": str(home), "PREFECT_API_URL": api, "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DO_NOT_TRACK": "1", "PREFECT_CLI_PROMPT": "false", "ASSAY_PROJECT_DIR": str(ROOT),
        }
        client_env.pop("PREFECT_API_DATABASE_CONNECTION_URL", None)
        # Only the server process knows the database URL (and so the password); workers and
        # flow runs talk to the API and never see it.
        server_env = {**client_env, "PREFECT_API_DATABASE_CONNECTION_URL": database_url}
        process = subprocess.Popen(
            [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT, env=server_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            wait_healthy(api, 240)
            yield client_env, cluster
        finally:
            process.terminate()
            process.wait(timeout=30)
    finally:
        cluster.stop()


def test_a_scheduled_suite_deployment_runs_on_a_prefect_server_backed_by_postgresql(postgres_server, tmp_path):
    env, cluster = postgres_server
    prefect(env, "work-pool", "create", "assay-local", "--type", "process")
    prefect(env, "deploy", "--name", "rag_qa-nightly")
    deployment = api(env, "GET", "/deployments/name/assay-evaluate/rag_qa-nightly")
    assert deployment["schedules"][0]["schedule"]["cron"] == "0 2 * * *"

    # The schedule's flow runs, stored in PostgreSQL: the scheduler service makes them every
    # minute; the same API call it uses makes them now, so the test does not wait for its loop.
    api(env, "POST", f"/deployments/{deployment['id']}/schedule", {"min_runs": 2})
    scheduled = api(env, "POST", "/flow_runs/filter", {
        "deployments": {"id": {"any_": [deployment["id"]]}}, "flow_runs": {"state": {"type": {"any_": ["SCHEDULED"]}}},
        "sort": "EXPECTED_START_TIME_ASC", "limit": 5})
    assert scheduled, "no flow runs were scheduled for the nightly cron"
    assert int(cluster.query(f"select count(*) from flow_run where deployment_id = '{deployment['id']}'")) >= len(scheduled)
    nightly = scheduled[0]
    assert nightly["auto_scheduled"] and nightly["parameters"]["spec"]["suite"] == "rag_qa"

    # Bring the next nightly run forward to now (results to a temp folder, not the repository).
    out = tmp_path / "runs"
    parameters = {**nightly["parameters"], "options": {**nightly["parameters"].get("options", {}), "out": str(out)}}
    api(env, "PATCH", f"/flow_runs/{nightly['id']}", {"parameters": parameters})
    now = datetime.now(UTC).isoformat()
    api(env, "POST", f"/flow_runs/{nightly['id']}/set_state",
        {"state": {"type": "SCHEDULED", "state_details": {"scheduled_time": now}}, "force": True})
    worker_output = run_worker_once(env)
    ran = api(env, "GET", f"/flow_runs/{nightly['id']}")
    assert ran["state_type"] == "COMPLETED", worker_output[-4000:]

    assert cluster.query(f"select state_type from flow_run where id = '{nightly['id']}'") == "COMPLETED"  # in PostgreSQL

    (run_dir,) = [p for p in out.iterdir() if (p / "manifest.json").exists()]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "completed" and manifest["prefect"]["flow_run_id"] == nightly["id"]
    audit, output = cli("audit", str(run_dir))
    assert audit.exit_code == 0 and "audit PASSED" in output, output

    # The database password reaches neither the run's evidence nor the worker's output.
    assert cluster.password not in worker_output
    for path in out.rglob("*"):
        if path.is_file():
            assert cluster.password.encode() not in path.read_bytes(), path
