#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack monitor's endpoint behind --web-config, the exporter-toolkit
# file: TLS with client certificates that must be signed by the client CA,
# and a basic-auth user whose bcrypt hash Apache's htpasswd made. Debian's
# prometheus scrapes it with tls_config and basic_auth: its target is up
# and PromQL returns the bytes a workload read. curl without credentials
# and with a wrong password gets 401; a client certificate of another CA,
# or none, fails the handshake with a TLS alert; plain HTTP gets nothing.
# POST /record without a user gets 401 and writes nothing, with the user
# 202 and a recording of mode 0600. A rotated certificate serves the next
# connection; a changed file that is not valid is said, naming the key,
# and the last good one keeps serving. Bad files are refused at the start
# naming their key, with nothing traced; POST /record on a listener that is
# not loopback needs users or --record-without-auth. Certificates are made
# here (openssl), never committed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

setup
need_tool prometheus promtool curl python3 mkfs.ext4 openssl htpasswd

T=$TMPD/tls
make_tls "$T"
HASH=$(htpasswd -nbBC 10 prometheus 'scrape secret' | cut -d: -f2)
[ "${HASH:0:4}" = '$2y$' ] || fail "htpasswd made no bcrypt hash: '$HASH'"
printf 'scrape secret' >"$TMPD/password"
REC=$TMPD/rec
mkdir "$REC"

# web.yml NAME: a web configuration in $T (relative names: from its directory)
write_config()
{
	cat >"$T/web.yml" <<EOF
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
basic_auth_users:
  prometheus: '$HASH'
EOF
}
write_config

make_loop A 64 ext4
mount -o remount,noatime "$A_MNT" || fail "cannot remount $A_MNT noatime"
dd_quiet if=/dev/urandom of="$A_MNT/data" bs=1M count=4 conv=fsync
sync

MON_PORT=$(free_port)
PROM_PORT=$(free_port)
URL=https://127.0.0.1:$MON_PORT
CLIENT=(--cacert "$T/ca.crt" --cert "$T/client.crt" --key "$T/client.key")
USER=(-u 'prometheus:scrape secret')

"$BLKSTACK" monitor -d "$A_PDEV" --listen "127.0.0.1:$MON_PORT" --web-config "$T/web.yml" \
	--record-on http --record-dir "$REC" --record-gap 0 \
	>"$TMPD/monitor.out" 2>"$TMPD/monitor.err" &
MON_PID=$!
_clean_pids+=("$MON_PID")
_clean_instances+=("blkstack-$MON_PID")
wait_http "$URL/metrics" "blkstack monitor" "$MON_PID" "$TMPD/monitor.err" "${CLIENT[@]}" "${USER[@]}"
grep -q "metrics at https://127.0.0.1:$MON_PORT/metrics" "$TMPD/monitor.err" ||
	fail "the monitor does not say it serves https: $(cat "$TMPD/monitor.err")"

# code ARGS...: the HTTP status curl got ("000": no HTTP answer at all)
code()
{
	curl -s -o /dev/null -w '%{http_code}' "$@" || true
}

# Basic authentication: none, a wrong password, a wrong user: 401 and a challenge
[ "$(code "${CLIENT[@]}" "$URL/metrics")" = 401 ] || fail "no credentials: not a 401"
[ "$(code "${CLIENT[@]}" -u 'prometheus:scrape secreT' "$URL/metrics")" = 401 ] ||
	fail "a wrong password: not a 401"
[ "$(code "${CLIENT[@]}" -u 'grafana:scrape secret' "$URL/metrics")" = 401 ] ||
	fail "an unknown user: not a 401"
curl -s -D - -o /dev/null "${CLIENT[@]}" "$URL/metrics" | grep -qi '^WWW-Authenticate: Basic realm=' ||
	fail "a 401 without a basic-auth challenge"
[ "$(code "${CLIENT[@]}" "${USER[@]}" "$URL/metrics")" = 200 ] || fail "the user is refused"

# Client certificates: another CA's, or none, fail the handshake with an alert
for v in 1.2 1.3; do
	rc=0
	curl -sS -o /dev/null --tls-max "$v" --cacert "$T/ca.crt" --cert "$T/rogue.crt" \
		--key "$T/rogue.key" "${USER[@]}" "$URL/metrics" 2>"$TMPD/rogue.err" || rc=$?
	# 35: the handshake failed; 56: in TLS 1.3 the client's Finished goes
	# before the server checks its certificate, and the alert comes on the
	# first read
	{ [ "$rc" = 35 ] || [ "$rc" = 56 ]; } || fail "TLS $v: another CA's client certificate: curl exit $rc"
	grep -q 'alert bad certificate' "$TMPD/rogue.err" ||
		fail "TLS $v: no bad-certificate alert for another CA's client certificate: $(cat "$TMPD/rogue.err")"
	curl -sS -o /dev/null --tls-max "$v" --cacert "$T/ca.crt" "${USER[@]}" "$URL/metrics" \
		2>"$TMPD/nocert.err" && fail "TLS $v: served without a client certificate"
	grep -q 'alert certificate required' "$TMPD/nocert.err" ||
		fail "TLS $v: no certificate-required alert without a client certificate: $(cat "$TMPD/nocert.err")"
done
[ "$(code "http://127.0.0.1:$MON_PORT/metrics")" = 000 ] || fail "plain HTTP got an HTTP answer"
# the server's certificate is the one made here, for 127.0.0.1
curl -s -o /dev/null -w '%{ssl_verify_result}' "${CLIENT[@]}" "${USER[@]}" "$URL/metrics" |
	grep -qx 0 || fail "the server's certificate does not verify against the test CA"

# POST /record: no user, a wrong password: 401 and no recording
[ "$(code "${CLIENT[@]}" -X POST "$URL/record")" = 401 ] || fail "POST /record without a user: not a 401"
[ "$(code "${CLIENT[@]}" -u 'prometheus:nope' -X POST "$URL/record")" = 401 ] ||
	fail "POST /record with a wrong password: not a 401"
# two read passes (a quarter of a second each) for a recording to show
sleep 1
[ -z "$(ls -A "$REC")" ] || fail "an unauthenticated POST /record wrote $(ls "$REC")"
[ "$(code "${CLIENT[@]}" "${USER[@]}" -X POST "$URL/record")" = 202 ] || fail "POST /record with the user: not a 202"
for i in $(seq 50); do
	ls "$REC"/blkstack-flight-*.dat >/dev/null 2>&1 && break
	sleep 0.1
done
FLIGHT=$(ls "$REC"/blkstack-flight-*.dat 2>/dev/null | head -1)
[ -n "$FLIGHT" ] || fail "POST /record with the user wrote no recording"
[ "$(stat -c %a "$FLIGHT")" = 600 ] || fail "the flight recording is mode $(stat -c %a "$FLIGHT"), not 600"

# Prometheus over TLS with a client certificate and basic auth
cat >"$TMPD/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: blkstack
    scheme: https
    tls_config:
      ca_file: $T/ca.crt
      cert_file: $T/client.crt
      key_file: $T/client.key
    basic_auth:
      username: prometheus
      password_file: $TMPD/password
    static_configs:
      - targets: ['127.0.0.1:$MON_PORT']
EOF
promtool check config "$TMPD/prometheus.yml" >/dev/null || fail "promtool rejects the test's config"
prometheus --config.file="$TMPD/prometheus.yml" --storage.tsdb.path="$TMPD/prom" \
	--web.listen-address="127.0.0.1:$PROM_PORT" >"$TMPD/prometheus.log" 2>&1 &
PROM_PID=$!
_clean_pids+=("$PROM_PID")
wait_http "http://127.0.0.1:$PROM_PORT/-/ready" prometheus "$PROM_PID"

promql()
{
	curl -sf --get "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if len(r) == 1 else "")'
}

# the workload: 4 MiB read directly from the partition's ext4
dd_quiet if="$A_MNT/data" of=/dev/null bs=64k iflag=direct
Q="sum(blkstack_layer_bytes_total{name=\"$A_PNAME\",op=\"read\"})"
for i in $(seq 150); do
	P=$(promql "$Q")
	[ "${P:-0}" = $((4 << 20)) ] && break
	sleep 0.1
done
[ "$(promql 'up{job="blkstack"}')" = 1 ] ||
	fail "Prometheus reports the target down: $(curl -s "http://127.0.0.1:$PROM_PORT/api/v1/targets")"
[ "$P" = $((4 << 20)) ] || fail "PromQL over TLS says $P bytes read at $A_PNAME, the workload read $((4 << 20))"
note "Prometheus over TLS and basic auth: up, $P bytes read at $A_PNAME"

# Rotation: a new server certificate on disk serves the next connection
serial()
{
	openssl s_client -connect "127.0.0.1:$MON_PORT" -CAfile "$T/ca.crt" -cert "$T/client.crt" \
		-key "$T/client.key" </dev/null 2>/dev/null | openssl x509 -noout -serial
}
OLD=$(serial)
[ -n "$OLD" ] || fail "openssl s_client cannot read the server's certificate"
openssl x509 -req -in "$T/server.csr" -CA "$T/ca.crt" -CAkey "$T/ca.key" -CAcreateserial \
	-days 2 -extfile "$T/server.ext" -out "$T/server.crt.new" 2>/dev/null && mv "$T/server.crt.new" "$T/server.crt"
# the files are looked at once a second at most
for i in $(seq 30); do
	NEW=$(serial)
	[ "$NEW" != "$OLD" ] && break
	sleep 0.2
done
[ "$NEW" != "$OLD" ] || fail "the rotated certificate does not serve new connections ($OLD)"
# said by the reading thread at its next pass
for i in $(seq 20); do
	grep -q "read again" "$TMPD/monitor.err" && break
	sleep 0.1
done
grep -q "web configuration '$T/web.yml' read again" "$TMPD/monitor.err" ||
	fail "the reload is not said: $(cat "$TMPD/monitor.err")"

# A changed file that is not valid: said with its key, the last good one serves
sed -i 's/client_auth_type:/client_auth_typ:/' "$T/web.yml"
for i in $(seq 30); do
	code "${CLIENT[@]}" "${USER[@]}" "$URL/metrics" >/dev/null
	grep -q "tls_server_config.client_auth_typ: unknown key" "$TMPD/monitor.err" && break
	sleep 0.2
done
grep -q "changed and is not valid: line 4: tls_server_config.client_auth_typ: unknown key; the last good one still serves" \
	"$TMPD/monitor.err" || fail "a bad new file is not said with its key: $(cat "$TMPD/monitor.err")"
[ "$(code "${CLIENT[@]}" "${USER[@]}" "$URL/metrics")" = 200 ] || fail "the last good configuration no longer serves"
[ "$(code "--cacert" "$T/ca.crt" "${USER[@]}" "$URL/metrics")" = 000 ] ||
	fail "the bad file dropped the client certificate check"
write_config

# SIGTERM: out with 0, nothing left
kill -TERM "$MON_PID"
MON_RC=0
wait "$MON_PID" || MON_RC=$?
[ "$MON_RC" -eq 0 ] || { cat "$TMPD/monitor.err" >&2; fail "blkstack monitor exited $MON_RC after SIGTERM"; }
instance_gone "blkstack-$MON_PID" || fail "tracefs instance blkstack-$MON_PID left behind"

# bad_start ARGS... -- EXPECTED: refused at the start with exit 1, the
# message holding EXPECTED, no tracefs instance left
bad_start()
{
	local expected=${*: -1} rc=0 pid

	"$BLKSTACK" monitor -d "$A_PDEV" "${@:1:$#-1}" >"$TMPD/bad.out" 2>"$TMPD/bad.err" &
	pid=$!
	wait "$pid" || rc=$?
	[ "$rc" = 1 ] || fail "monitor ${*:1:$#-1}: exit $rc, not 1: $(cat "$TMPD/bad.err")"
	grep -qF -- "$expected" "$TMPD/bad.err" || fail "monitor ${*:1:$#-1}: '$(cat "$TMPD/bad.err")' does not say '$expected'"
	instance_gone "blkstack-$pid" || fail "a refused start left tracefs instance blkstack-$pid"
}
P2=$(free_port)
cp "$T/web.yml" "$T/good.yml"
sed 's/key_file: server.key/key_file: missing.key/' "$T/good.yml" >"$T/bad1.yml"
sed 's/key_file: server.key/key_file: client.key/' "$T/good.yml" >"$T/bad2.yml"
sed "s/prometheus: .*/prometheus: 'scrape secret'/" "$T/good.yml" >"$T/bad3.yml"
sed 's/client_ca_file: ca.crt/client_ca_file: server.key/' "$T/good.yml" >"$T/bad4.yml"
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nrate_limit:\n  burst: 1\n' >"$T/bad5.yml"
bad_start --listen "127.0.0.1:$P2" --web-config "$T/bad1.yml" \
	"invalid --web-config '$T/bad1.yml': tls_server_config.key_file: cannot read '$T/missing.key': No such file or directory"
bad_start --listen "127.0.0.1:$P2" --web-config "$T/bad2.yml" \
	"tls_server_config.key_file: the key does not go with the certificate of $T/server.crt"
bad_start --listen "127.0.0.1:$P2" --web-config "$T/bad3.yml" "line 7: basic_auth_users.prometheus: not a bcrypt hash"
bad_start --listen "127.0.0.1:$P2" --web-config "$T/bad4.yml" "tls_server_config.client_ca_file: '$T/server.key' holds no PEM certificate"
bad_start --listen "127.0.0.1:$P2" --web-config "$T/bad5.yml" "line 4: rate_limit: not supported"
bad_start --listen "127.0.0.1:$P2" --web-config "$T/nothing.yml" "invalid --web-config '$T/nothing.yml': cannot read it: No such file"

# POST /record on every address with no users: refused at the start...
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n' >"$T/nousers.yml"
bad_start --listen ":$P2" --web-config "$T/nousers.yml" --record-on http --record-dir "$REC" \
	"--record-on http on ':$P2', which is not a loopback address, with no users"
# ...unless --record-without-auth says anyone may ask
rm -f "$REC"/*
"$BLKSTACK" monitor -d "$A_PDEV" --listen ":$P2" --web-config "$T/nousers.yml" --record-on http \
	--record-dir "$REC" --record-without-auth >"$TMPD/open.out" 2>"$TMPD/open.err" &
OPEN_PID=$!
_clean_pids+=("$OPEN_PID")
_clean_instances+=("blkstack-$OPEN_PID")
wait_http "https://127.0.0.1:$P2/metrics" "blkstack monitor --record-without-auth" "$OPEN_PID" \
	"$TMPD/open.err" --cacert "$T/ca.crt"
[ "$(code --cacert "$T/ca.crt" -X POST "https://127.0.0.1:$P2/record")" = 202 ] ||
	fail "--record-without-auth: POST /record refused"
kill -TERM "$OPEN_PID"
wait "$OPEN_PID" || fail "blkstack monitor --record-without-auth did not end cleanly"
note "PASS"
