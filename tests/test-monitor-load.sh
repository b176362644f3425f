#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack monitor's endpoint under load, behind TLS with client
# certificates and a basic-auth user: forty scrapers at once, each opening
# a new TLS connection for every scrape as fast as it is answered, and one
# client that sends its request a byte a second, while dd writes to a loop
# device's partition directly in 4 KiB pieces. Every scrape is answered
# 200 with the exposition, the slow client holds its connection and gets
# its answer in the end, and tracing loses nothing: no event lost on any
# CPU, every top-level I/O matched, and the bytes written at the partition
# exactly what dd wrote. The figures (scrapes answered, the monitor's peak
# memory, its CPU time) are printed, not asserted: the machine is shared.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

setup
need_tool curl python3 openssl htpasswd

STORM_S=15
SCRAPERS=40
T=$TMPD/tls
make_tls "$T"
HASH=$(htpasswd -nbBC 10 prometheus secret | cut -d: -f2)
cat >"$T/web.yml" <<EOF
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
basic_auth_users:
  prometheus: '$HASH'
EOF

make_loop A 256
PORT=$(free_port)
URL=https://127.0.0.1:$PORT
CURL=(--cacert "$T/ca.crt" --cert "$T/client.crt" --key "$T/client.key" -u prometheus:secret)
"$BLKSTACK" monitor -d "$A_PDEV" --listen "127.0.0.1:$PORT" --web-config "$T/web.yml" \
	>"$TMPD/monitor.out" 2>"$TMPD/monitor.err" &
MON_PID=$!
_clean_pids+=("$MON_PID")
_clean_instances+=("blkstack-$MON_PID")
wait_http "$URL/metrics" "blkstack monitor" "$MON_PID" "$TMPD/monitor.err" "${CURL[@]}"

# metric NAME_AND_LABELS: the sum of the matching series of a scrape now
metric()
{
	curl -sf "${CURL[@]}" "$URL/metrics" >"$TMPD/m.txt" || fail "cannot scrape /metrics"
	awk -v re="^$1" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$TMPD/m.txt"
}
W0=$(metric "blkstack_layer_bytes_total[{][^}]*name=\"$A_PNAME\"[^}]*op=\"write\"")
CPU0=$(awk '{ print $14 + $15 }' "/proc/$MON_PID/stat")
# the main thread reads the trace; the HTTP server has threads of its own
READ0=$(awk '{ print $14 + $15 }' "/proc/$MON_PID/task/$MON_PID/stat")

# the workload: 8 MiB of 4 KiB direct writes, over and over through the storm
(
	n=0
	end=$((SECONDS + STORM_S))
	while [ $SECONDS -lt $end ]; do
		dd if=/dev/zero of="$A_PDEV" bs=4k count=2048 oflag=direct status=none || exit 1
		n=$((n + 1))
	done
	echo "$n" >"$TMPD/dd.count"
) &
DD_PID=$!
_clean_pids+=("$DD_PID")

# the scrapers and the slow client, for the storm's length
python3 - "$PORT" "$T" "$SCRAPERS" "$STORM_S" >"$TMPD/storm.out" 2>"$TMPD/storm.err" <<'EOF' &
import base64, http.client, socket, ssl, sys, threading, time

port, tls, nscrapers, storm = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
auth = "Basic " + base64.b64encode(b"prometheus:secret").decode()
ctx = ssl.create_default_context(cafile=tls + "/ca.crt")
ctx.load_cert_chain(tls + "/client.crt", tls + "/client.key")
end = time.monotonic() + storm
ok, bad, errors = [0] * nscrapers, [0] * nscrapers, []

def scraper(i):
    while time.monotonic() < end:
        try:
            c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=30)
            c.request("GET", "/metrics", headers={"Authorization": auth})
            r = c.getresponse()
            body = r.read()
            c.close()
            if r.status == 200 and b"blkstack_layer_bytes_total" in body:
                ok[i] += 1
            else:
                bad[i] += 1
                errors.append("scraper %d: %d" % (i, r.status))
        except Exception as e:
            bad[i] += 1
            errors.append("scraper %d: %r" % (i, e))

slow = {}
def slow_client():
    # the request's head, then a header a byte a second: it holds a
    # connection the whole storm, and must not hold anyone else up
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="127.0.0.1")
    s.sendall(("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: %s\r\nX-Slow: "
               % auth).encode())
    sent = 0
    t0 = time.monotonic()
    while time.monotonic() < end:
        s.sendall(b"a")
        sent += 1
        time.sleep(1)
    s.sendall(b"\r\n\r\n")
    s.settimeout(30)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    slow["bytes"] = sent
    slow["status"] = data.split(b"\r\n", 1)[0].decode(errors="replace")
    slow["seconds"] = time.monotonic() - t0

threads = [threading.Thread(target=scraper, args=(i,)) for i in range(nscrapers)]
threads.append(threading.Thread(target=slow_client))
for t in threads:
    t.start()
for t in threads:
    t.join()
print("answered %d failed %d least %d most %d" % (sum(ok), sum(bad), min(ok), max(ok)))
print("slow %s after %s bytes in %.0f s" % (slow.get("status"), slow.get("bytes"), slow.get("seconds", 0)))
for e in errors[:10]:
    print(e, file=sys.stderr)
EOF
STORM_PID=$!
_clean_pids+=("$STORM_PID")

wait "$DD_PID" || fail "the dd workload failed"
wait "$STORM_PID" || { cat "$TMPD/storm.err" >&2; fail "the scrapers failed"; }
cat "$TMPD/storm.out"
read -r _ ANSWERED _ FAILED _ LEAST _ MOST <"$TMPD/storm.out"
[ "$FAILED" = 0 ] || { cat "$TMPD/storm.err" >&2; fail "$FAILED scrapes were not answered with the metrics"; }
[ "$LEAST" -gt 0 ] || fail "a scraper got no answer in $STORM_S s"
grep -q '^slow HTTP/1.1 200 OK after ' "$TMPD/storm.out" || fail "the slow client was not answered 200: $(tail -1 "$TMPD/storm.out")"

# tracing lost nothing: the last writes are read within two passes
BYTES=$(( $(cat "$TMPD/dd.count") * 2048 * 4096 ))
for i in $(seq 30); do
	W1=$(metric "blkstack_layer_bytes_total[{][^}]*name=\"$A_PNAME\"[^}]*op=\"write\"")
	[ $((W1 - W0)) = "$BYTES" ] && break
	sleep 0.1
done
LOST=$(metric 'blkstack_events_lost_total')
MATCH=$(awk '/^blkstack_match_ratio / { print $2 + 0 }' "$TMPD/m.txt")
CPU1=$(awk '{ print $14 + $15 }' "/proc/$MON_PID/stat")
READ1=$(awk '{ print $14 + $15 }' "/proc/$MON_PID/task/$MON_PID/stat")
HWM=$(awk '/^VmHWM:/ { print $2 }' "/proc/$MON_PID/status")
note "storm of $STORM_S s: $ANSWERED scrapes answered ($LEAST to $MOST a scraper), dd wrote $BYTES bytes; the monitor: peak RSS $HWM KiB, $(( (CPU1 - CPU0) * 1000 / $(getconf CLK_TCK) )) ms of CPU, $(( (READ1 - READ0) * 1000 / $(getconf CLK_TCK) )) ms of it in the reading thread"
[ "$LOST" = 0 ] || fail "$LOST events lost under the scrapers"
[ "$MATCH" = 1 ] || fail "match ratio $MATCH under the scrapers, not 1"
[ $((W1 - W0)) = "$BYTES" ] || fail "the monitor counts $((W1 - W0)) bytes written at $A_PNAME, dd wrote $BYTES"

kill -TERM "$MON_PID"
wait "$MON_PID" || { cat "$TMPD/monitor.err" >&2; fail "blkstack monitor did not end cleanly"; }
instance_gone "blkstack-$MON_PID" || fail "tracefs instance blkstack-$MON_PID left behind"
note "PASS"
