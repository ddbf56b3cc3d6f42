#!/usr/bin/env bash
# PostgreSQL's server binaries for the Prefect-on-PostgreSQL integration test
# (tests/flows/test_prefect_postgres.py), from Debian's own `postgresql` package when missing.
# The test makes its own throwaway cluster; this only installs the binaries.
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then
  echo "postgresql: present"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "postgresql is not installed and only root can install it: sudo apt-get install -y postgresql" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends postgresql
ls /usr/lib/postgresql/*/bin/initdb
