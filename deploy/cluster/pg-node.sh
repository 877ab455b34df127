#!/bin/sh
# One data node of a pg_auto_failover formation in the compose `cluster` profile (docker-compose.yml),
# run in the citusdata/pg_auto_failover image: `pg-node.sh <name> <hostname> <monitor hostname>`.
# Like scripts/lib/pg-auto-failover.ts: registered with its monitor, the first node becomes the primary
# and the next its synchronous standby (replication quorum); trust, no TLS: not for data.
set -eu

# A second `create` (the container restarted) finds the node made and exits 0; one interrupted
# half-way carries on from where it stopped.
pg_autoctl create postgres \
  --name "$1" \
  --hostname "$2" \
  --monitor "postgres://autoctl_node@$3:5432/pg_auto_failover" \
  --username postgres \
  --dbname postgres \
  --auth trust \
  --no-ssl \
  --replication-quorum true

# pg_autoctl lets the monitor and the other node in by host name, which PostgreSQL checks against the
# reverse DNS of the client's address, and Docker's DNS answers that with the container's name, not
# the compose service's. The services use databases of their own (wallet_<service>), which
# --pg-hba-lan (one database) leaves out. So the compose network is let in: replication, the
# monitor's checks and the services alike. A standby's copy of the primary's file has the lines already.
hba="$PGDATA/pg_hba.conf"
if ! grep -q '^host all all samenet trust' "$hba"; then
  printf '%s\n' 'host all all samenet trust' 'host replication all samenet trust' >>"$hba"
  # In case `create` left PostgreSQL running: it reads the file again.
  pg_ctl reload -D "$PGDATA" >/dev/null 2>&1 || true
fi

exec pg_autoctl run
