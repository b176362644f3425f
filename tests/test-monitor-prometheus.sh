#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack monitor with the real parts around it: Debian's prometheus,
# started here on 127.0.0.1, scrapes blkstack monitor of a loop device with
# a partition and ext4 while a workload of known size runs, and what PromQL
# says of it equals what `blkstack report` of the same workload says: bytes
# exactly at every layer and end to end, the p99 latency in the same
# bucket. `promtool check metrics` accepts the endpoint's text, and
# node_exporter's textfile collector, running as nobody, serves the
# --textfile output, a file of mode 0640 in its directory's group. SIGTERM
# ends the monitor within a second, its instance and textfile gone.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

setup
need_tool prometheus promtool prometheus-node-exporter curl python3 mkfs.ext4 setpriv

# promql QUERY: the value of an instant query's only sample ("" if none).
promql()
{
	curl -sf --get "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if len(r) == 1 else "")'
}

make_loop A 64 ext4
# noatime: the reads of the workload then write nothing, and nothing but the
# workload touches the disk while both tools trace it
mount -o remount,noatime "$A_MNT" || fail "cannot remount $A_MNT noatime"
dd_quiet if=/dev/urandom of="$A_MNT/data" bs=1M count=8 conv=fsync
sync

MON_PORT=$(free_port)
PROM_PORT=$(free_port)
NODE_PORT=$(free_port)
TEXTDIR=$TMPD/textfile
mkdir "$TEXTDIR"
# node_exporter runs as another user (as Debian runs it, as prometheus), and
# reads the textfile through its directory's group, set-group-ID so that the
# file takes it; nobody else can read the file
getent group nogroup >/dev/null || skip "no group nogroup to run node_exporter in"
chmod 711 "$TMPD"
chgrp nogroup "$TEXTDIR"
chmod 2750 "$TEXTDIR"

"$BLKSTACK" monitor -d "$A_PDEV" --listen "127.0.0.1:$MON_PORT" --textfile "$TEXTDIR" \
	--interval 1s >"$TMPD/monitor.out" 2>"$TMPD/monitor.err" &
MON_PID=$!
_clean_pids+=("$MON_PID")
_clean_instances+=("blkstack-$MON_PID")
wait_http "http://127.0.0.1:$MON_PORT/metrics" "blkstack monitor" "$MON_PID"
[ -d "$TRACEFS/instances/blkstack-$MON_PID" ] || fail "no tracefs instance blkstack-$MON_PID"

cat >"$TMPD/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: blkstack
    static_configs:
      - targets: ['127.0.0.1:$MON_PORT']
EOF
promtool check config "$TMPD/prometheus.yml" >/dev/null || fail "promtool rejects the test's config"
prometheus --config.file="$TMPD/prometheus.yml" --storage.tsdb.path="$TMPD/prom" \
	--web.listen-address="127.0.0.1:$PROM_PORT" >"$TMPD/prometheus.log" 2>&1 &
PROM_PID=$!
_clean_pids+=("$PROM_PID")
wait_http "http://127.0.0.1:$PROM_PORT/-/ready" prometheus "$PROM_PID"

setpriv --reuid=nobody --regid=nogroup --clear-groups \
	prometheus-node-exporter --web.listen-address="127.0.0.1:$NODE_PORT" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$TEXTDIR" >"$TMPD/node.log" 2>&1 &
NODE_PID=$!
_clean_pids+=("$NODE_PID")
wait_http "http://127.0.0.1:$NODE_PORT/metrics" node_exporter "$NODE_PID"

# The workload, of known size: 8 MiB read directly in 64 KiB pieces, traced
# by report from before it starts until it ends, by the monitor throughout.
"$BLKSTACK" report -d "$A_PDEV" --json -- \
	dd if="$A_MNT/data" of=/dev/null bs=64k iflag=direct status=none \
	>"$TMPD/report.json" 2>"$TMPD/report.err" ||
	{ cat "$TMPD/report.err" >&2; fail "blkstack report of the workload failed"; }

# What report says, per layer and end to end.
read -r R_PART R_DISK R_E2E R_P99 < <(python3 - "$TMPD/report.json" "$A_PNAME" "$A_NAME" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
def layer(name):
    for l in doc["layers"]:
        if l.get("name") == name:
            return l["ops"].get("read", {})
    return {}
part, disk = layer(sys.argv[2]), layer(sys.argv[3])
print(part.get("bytes", 0), disk.get("bytes", 0), doc["end_to_end"]["read"]["bytes"],
      disk["total_ns"]["p99"])
EOF
)
note "report: read bytes $A_PNAME=$R_PART $A_NAME=$R_DISK end to end=$R_E2E, p99 at $A_NAME ${R_P99} ns"
[ "$R_PART" -eq $((8 << 20)) ] || fail "report counts $R_PART bytes read at $A_PNAME, the workload read $((8 << 20))"

# Prometheus: wait for a scrape that has the whole workload (report ended
# after it, so the next scrapes have it), at most 15 s.
PART_Q="sum(blkstack_layer_bytes_total{name=\"$A_PNAME\",op=\"read\"})"
for i in $(seq 150); do
	P_PART=$(promql "$PART_Q")
	[ "${P_PART:-0}" = "$R_PART" ] && break
	sleep 0.1
done
P_DISK=$(promql "sum(blkstack_layer_bytes_total{name=\"$A_NAME\",op=\"read\"})")
P_E2E=$(promql 'sum(blkstack_end_to_end_bytes_total{op="read"})')
P_P99=$(promql "histogram_quantile(0.99, sum by (le) (blkstack_layer_io_latency_seconds_bucket{name=\"$A_NAME\",op=\"read\",stage=\"total\"}))")
note "PromQL: read bytes $A_PNAME=$P_PART $A_NAME=$P_DISK end to end=$P_E2E, p99 at $A_NAME ${P_P99} s"
[ "$P_PART" = "$R_PART" ] || fail "PromQL says $P_PART bytes read at $A_PNAME, report $R_PART"
[ "$P_DISK" = "$R_DISK" ] || fail "PromQL says $P_DISK bytes read at $A_NAME, report $R_DISK"
[ "$P_E2E" = "$R_E2E" ] || fail "PromQL says $P_E2E bytes read end to end, report $R_E2E"

# p99: report's value falls in the bucket PromQL interpolated in. Both come
# from the same 1/32-wide slots, which can straddle a bound: 4% of slack.
python3 - "$P_P99" "$R_P99" <<'EOF' || fail "p99: PromQL ${P_P99} s and report ${R_P99} ns are not in the same bucket"
import sys
bounds = [m * 10.0 ** e for e in range(-6, 1) for m in (1, 2, 5)] + [10.0]
q, r = float(sys.argv[1]), int(sys.argv[2]) / 1e9
lo = max([b for b in bounds if b < q], default=0.0)
hi = min([b for b in bounds if b >= q], default=float("inf"))
sys.exit(0 if lo / 1.04 <= r <= hi * 1.04 else 1)
EOF

# Prometheus negotiated OpenMetrics and took every sample: the target is up.
[ "$(promql 'up{job="blkstack"}')" = 1 ] || fail "Prometheus reports the blkstack target down"
[ "$(promql 'blkstack_match_ratio')" = 1 ] || fail "match ratio is not 1 on an idle loop device"
[ "$(promql "count(blkstack_device_info{name=\"$A_PNAME\",kind=\"part\",parent=\"${A_MM/,/:}\"})")" = 1 ] ||
	fail "no blkstack_device_info for $A_PNAME with its disk as parent"

# promtool on the endpoint itself
curl -sf "http://127.0.0.1:$MON_PORT/metrics" >"$TMPD/metrics.txt" || fail "cannot fetch /metrics"
promtool check metrics <"$TMPD/metrics.txt" || fail "promtool check metrics rejects /metrics"
curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MON_PORT/nothing" | grep -qx 404 ||
	fail "an unknown path is not a 404"

# node_exporter's textfile collector serves the --textfile output
for i in $(seq 50); do
	curl -sf "http://127.0.0.1:$NODE_PORT/metrics" >"$TMPD/node.txt" || fail "cannot fetch node_exporter's metrics"
	N_PART=$(awk -v n="$A_PNAME" '$1 ~ "^blkstack_layer_bytes_total[{]" && $1 ~ "name=\"" n "\"" && $1 ~ "op=\"read\"" { printf "%.0f\n", $2 }' "$TMPD/node.txt")
	[ "$N_PART" = "$R_PART" ] && break
	sleep 0.1
done
[ "$N_PART" = "$R_PART" ] || fail "node_exporter serves '$N_PART' bytes read at $A_PNAME from the textfile, report $R_PART"
grep -q '^node_textfile_scrape_error 0' "$TMPD/node.txt" || fail "node_exporter's textfile collector reports an error"
[ "$(stat -c '%a %G' "$TEXTDIR/blkstack.prom")" = "640 nogroup" ] ||
	fail "the textfile is '$(stat -c '%a %G' "$TEXTDIR/blkstack.prom")', not '640 nogroup' (its directory's group)"

# SIGTERM: out within a second, exit 0, no instance, no textfile left
kill -TERM "$MON_PID"
for i in $(seq 10); do
	kill -0 "$MON_PID" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$MON_PID" 2>/dev/null && fail "blkstack monitor still runs 1 s after SIGTERM"
MON_RC=0
wait "$MON_PID" || MON_RC=$?
[ "$MON_RC" -eq 0 ] || { cat "$TMPD/monitor.err" >&2; fail "blkstack monitor exited $MON_RC after SIGTERM"; }
instance_gone "blkstack-$MON_PID" || fail "tracefs instance blkstack-$MON_PID left behind"
[ ! -e "$TEXTDIR/blkstack.prom" ] || fail "$TEXTDIR/blkstack.prom left behind by a stopped monitor"
note "PASS"
