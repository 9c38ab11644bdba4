#!/usr/bin/env bash
# A real Kubernetes control plane on loopback: etcd, kube-apiserver (RBAC, Pod Security admission,
# service-account tokens), kube-controller-manager, kube-scheduler and kwok playing the kubelets of
# N fake nodes. Every process runs in one process group under a supervisor, which tears the group
# down when asked (stop), when a component dies, or when the owner process (--owner-pid) is gone.
#
#   cluster.sh start --dir DIR [--nodes N] [--gpu-nodes G] [--owner-pid PID] [--timeout SECONDS]
#                    [--kwok-parallelism P]
#     (STALLWATCH_AUDIT_POLICY=FILE in the environment: the API server writes an audit log with that
#     policy to DIR/logs/audit.log, JSON lines; the scale run counts the operator's requests there.
#     --kwok-parallelism, or STALLWATCH_KWOK_PARALLELISM: kwok plays P pod stages, P node stages and
#     P node leases at once instead of its default 4 each; the scale run uses 16.
#     STALLWATCH_APISERVER_FLAGS: more kube-apiserver flags, kept across restarts, e.g.
#     --goaway-chance=0.02 as managed API servers send GOAWAYs; STALLWATCH_KCM_FLAGS the same for
#     kube-controller-manager, later flags win. STALLWATCH_NODE_LEASE_SECONDS: kwok's node lease
#     duration, 40 by default as the kubelet's; kwok renews each lease every quarter of it.)
#   cluster.sh stop --dir DIR
#   cluster.sh restart COMPONENT --dir DIR [--kill] [--down SECONDS]
#
# start returns once every component is healthy and the nodes are Ready; DIR/kubeconfig is then
# the cluster-admin kubeconfig. Logs: DIR/logs/<component>.log. On failure: one line naming the
# component and its log, exit 1, nothing left running. restart stops one component (SIGTERM, or
# SIGKILL with --kill), keeps it down for --down seconds, has the supervisor start it again with
# the same flags and data, and returns once it is healthy (fault tests); any other exit of a
# component still tears the cluster down.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

say() { echo "realcluster: $*" >&2; }
fail() { say "$*"; exit 1; }

usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

cmd="${1:-}"; [ -n "$cmd" ] || usage; shift
dir="" nodes=3 gpu_nodes=0 owner_pid="" timeout=300 bin="${STALLWATCH_REALCLUSTER_BIN:-}"
kwok_parallelism="${STALLWATCH_KWOK_PARALLELISM:-}"
component="" signal=TERM down=0
while [ $# -gt 0 ]; do
  case "$1" in
    --kill) signal=KILL; shift ;;
    --down) down="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --nodes) nodes="$2"; shift 2 ;;
    --gpu-nodes) gpu_nodes="$2"; shift 2 ;;
    --owner-pid) owner_pid="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --kwok-parallelism) kwok_parallelism="$2"; shift 2 ;;
    -*) say "unknown argument: $1"; usage ;;
    *) [ "$cmd" = restart ] && [ -z "$component" ] || { say "unknown argument: $1"; usage; }
       component="$1"; shift ;;
  esac
done
[ -n "$dir" ] || fail "--dir is required"

# ---------------------------------------------------------------------------------------------
# stop: TERM the supervisor (it stops its components), then make sure the group is gone.
group_alive() { kill -0 -- "-$1" 2>/dev/null; }
stop_cluster() {
  local pgid
  [ -f "$dir/supervisor.pid" ] || return 0
  pgid=$(cat "$dir/supervisor.pid")
  kill -TERM "$pgid" 2>/dev/null || true
  for _ in $(seq 1 150); do group_alive "$pgid" || { rm -f "$dir/supervisor.pid"; return 0; }; sleep 0.1; done
  say "processes of $dir still running after 15 s: killing the group"
  kill -KILL -- "-$pgid" 2>/dev/null || true
  for _ in $(seq 1 50); do group_alive "$pgid" || break; sleep 0.1; done
  rm -f "$dir/supervisor.pid"
}
if [ "$cmd" = stop ]; then stop_cluster; exit 0; fi

# ---------------------------------------------------------------------------------------------
# restart: asks the supervisor (through DIR/restart/COMPONENT) to start COMPONENT again once it
# has exited, then ends it and waits for the supervisor's answer (.done, or the cluster's failure).
if [ "$cmd" = restart ]; then
  case "$component" in
    etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kwok) ;;
    *) fail "restart: unknown component '${component}' (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)" ;;
  esac
  [[ "$down" =~ ^[0-9]+$ ]] || fail "restart: --down takes whole seconds, not '$down'"
  [ -f "$dir/supervisor.pid" ] && group_alive "$(cat "$dir/supervisor.pid")" && [ -f "$dir/ready" ] \
    || fail "no cluster is running in $dir"
  pid=$(cat "$dir/pids/$component" 2>/dev/null) || fail "no pid of $component in $dir/pids"
  mkdir -p "$dir/restart"; rm -f "$dir/restart/$component.done"
  echo "$down" > "$dir/restart/$component"
  kill "-$signal" "$pid" 2>/dev/null || true
  deadline=$(( $(date +%s) + timeout ))
  until [ -f "$dir/restart/$component.done" ]; do
    [ -f "$dir/failed" ] && fail "$(cat "$dir/failed")"
    group_alive "$(cat "$dir/supervisor.pid")" || fail "the cluster in $dir stopped while restarting $component"
    [ "$(date +%s)" -lt "$deadline" ] || fail "$component not restarted after ${timeout}s (log: $dir/logs/$component.log)"
    sleep 0.1
  done
  say "restarted $component (SIG$signal, down ${down}s): $(cat "$dir/restart/$component.done")"
  exit 0
fi

# ---------------------------------------------------------------------------------------------
# supervise (internal): runs as the leader of a new session; starts the components in order and
# watches them. Its state: DIR/ready when the cluster is up, DIR/failed with one line otherwise.
if [ "$cmd" = _supervise ]; then
  exec >>"$dir/logs/supervisor.log" 2>&1
  pids=() names=()
  teardown() {
    trap - TERM INT EXIT
    local i
    for ((i=${#pids[@]}-1; i>=0; i--)); do kill -TERM "${pids[$i]}" 2>/dev/null || true; done
    for _ in $(seq 1 100); do
      local alive=0
      for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
      [ $alive = 0 ] && break; sleep 0.1
    done
    kill -KILL -- "-$$" 2>/dev/null || true
  }
  trap 'teardown; exit 0' TERM INT
  trap teardown EXIT
  failed() { echo "$*" > "$dir/failed.tmp"; mv "$dir/failed.tmp" "$dir/failed"; exit 1; }
  # shellcheck source=/dev/null
  . "$dir/env"
  mkdir -p "$dir/pids"
  launch() { # NAME CMD...: starts one component with its log (appended to on a restart)
    local name="$1" i; shift
    echo "$(date -u +%FT%TZ) starting $name: $*"
    "$@" >>"$dir/logs/$name.log" 2>&1 &
    echo "$!" > "$dir/pids/$name"
    for i in "${!names[@]}"; do
      if [ "${names[$i]}" = "$name" ]; then pids[$i]="$!"; return; fi
    done
    pids+=("$!"); names+=("$name")
  }
  check_alive() {
    local i code name begun
    for i in "${!pids[@]}"; do
      if ! kill -0 "${pids[$i]}" 2>/dev/null; then
        wait "${pids[$i]}" && code=0 || code=$?
        name="${names[$i]}"
        if [ -f "$dir/restart/$name" ]; then # asked for by cluster.sh restart
          begun=$(date +%s%N)
          echo "$(date -u +%FT%TZ) $name exited with code $code on request; down $(cat "$dir/restart/$name")s"
          sleep "$(cat "$dir/restart/$name")"
          rm -f "$dir/restart/$name"
          "start_${name//-/_}"
          echo "up $(( ($(date +%s%N) - begun) / 1000000 )) ms after its exit" > "$dir/restart/$name.done"
          continue
        fi
        failed "$name exited with code $code (log: $dir/logs/$name.log)"
      fi
    done
    if [ -n "$OWNER_PID" ] && ! kill -0 "$OWNER_PID" 2>/dev/null; then
      echo "owner process $OWNER_PID is gone: stopping"; exit 0
    fi
  }
  await() { # NAME SECONDS CHECK...: waits for a check, failing when its component dies
    local name="$1" seconds="$2" deadline; shift 2
    deadline=$(( $(date +%s) + seconds ))
    until "$@" >/dev/null 2>&1; do
      check_alive
      [ "$(date +%s)" -lt "$deadline" ] || failed "$name not ready after ${seconds}s (log: $dir/logs/$name.log)"
      sleep 0.25
    done
    echo "$(date -u +%FT%TZ) $name ready"
  }
  api() { curl -sf --cacert "$dir/pki/ca.crt" -H "Authorization: Bearer $ADMIN_TOKEN" "https://127.0.0.1:$APISERVER_PORT$1"; }

  start_etcd() {
    launch etcd "$BIN/etcd" --name stallwatch --data-dir "$dir/etcd" \
      --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
      --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
      --initial-cluster "stallwatch=http://127.0.0.1:$ETCD_PEER_PORT" \
      --listen-metrics-urls "http://127.0.0.1:$ETCD_METRICS_PORT" \
      --unsafe-no-fsync --quota-backend-bytes 4294967296 --log-level warn
    await etcd 120 curl -sf "http://127.0.0.1:$ETCD_PORT/health"
  }
  start_etcd

  audit=()
  if [ -n "${AUDIT_POLICY:-}" ]; then
    audit=(--audit-policy-file "$AUDIT_POLICY" --audit-log-path "$dir/logs/audit.log" --audit-log-format json)
  fi
  start_kube_apiserver() {
    launch kube-apiserver "$BIN/kube-apiserver" \
      --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
      --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$APISERVER_PORT" \
      --tls-cert-file "$dir/pki/apiserver.crt" --tls-private-key-file "$dir/pki/apiserver.key" \
      --client-ca-file "$dir/pki/ca.crt" --token-auth-file "$dir/pki/tokens.csv" \
      --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
      --service-account-issuer https://kubernetes.default.svc.cluster.local \
      --service-account-key-file "$dir/pki/sa.pub" --service-account-signing-key-file "$dir/pki/sa.key" \
      --api-audiences https://kubernetes.default.svc.cluster.local \
      --service-cluster-ip-range 10.96.0.0/16 --allow-privileged=true \
      --max-requests-inflight "${APISERVER_MAX_INFLIGHT:-400}" --max-mutating-requests-inflight 200 \
      --profiling=false "${audit[@]}" ${APISERVER_EXTRA_FLAGS:-}
    await kube-apiserver 240 api /readyz
  }
  start_kube_apiserver

  start_kube_controller_manager() {
    launch kube-controller-manager "$BIN/kube-controller-manager" \
      --kubeconfig "$dir/kube-controller-manager.kubeconfig" \
      --authentication-kubeconfig "$dir/kube-controller-manager.kubeconfig" \
      --authorization-kubeconfig "$dir/kube-controller-manager.kubeconfig" \
      --bind-address 127.0.0.1 --secure-port "$KCM_PORT" --leader-elect=false \
      --use-service-account-credentials --service-account-private-key-file "$dir/pki/sa.key" \
      --root-ca-file "$dir/pki/ca.crt" \
      --cluster-signing-cert-file "$dir/pki/ca.crt" --cluster-signing-key-file "$dir/pki/ca.key" \
      --node-monitor-period 2s --node-monitor-grace-period "${NODE_MONITOR_GRACE_PERIOD:-40s}" \
      --kube-api-qps 200 --kube-api-burst 400 ${KCM_EXTRA_FLAGS:-}
    await kube-controller-manager 120 curl -sfk "https://127.0.0.1:$KCM_PORT/healthz"
  }
  start_kube_controller_manager

  start_kube_scheduler() {
    launch kube-scheduler "$BIN/kube-scheduler" \
      --kubeconfig "$dir/kube-scheduler.kubeconfig" \
      --authentication-kubeconfig "$dir/kube-scheduler.kubeconfig" \
      --authorization-kubeconfig "$dir/kube-scheduler.kubeconfig" \
      --bind-address 127.0.0.1 --secure-port "$SCHEDULER_PORT" --leader-elect=false \
      --kube-api-qps 200 --kube-api-burst 400
    await kube-scheduler 120 curl -sfk "https://127.0.0.1:$SCHEDULER_PORT/healthz"
  }
  start_kube_scheduler

  # kwok plays every node's kubelet except those labelled Unreachable: a dead kubelet (no lease,
  # no status; the node lifecycle controller turns the node Unknown). NotReady-labelled nodes stay
  # managed and report Ready=False through a Stage. KWOK_WORKDIR keeps ~/.kwok/kwok.yaml out.
  mkdir -p "$dir/kwok-home"
  kwok_configs=(--config "$KWOK_CONFIG")
  [ -n "${KWOK_OPTIONS:-}" ] && kwok_configs+=(--config "$KWOK_OPTIONS")
  start_kwok() {
    KWOK_WORKDIR="$dir/kwok-home" launch kwok "$BIN/kwok" --kubeconfig "$dir/kubeconfig" \
      "${kwok_configs[@]}" \
      --manage-nodes-with-label-selector 'stallwatch.dev/kwok-node-state!=Unreachable' \
      --server-address "127.0.0.1:$KWOK_PORT" \
      --node-ip 10.0.0.1 --cidr 10.244.0.0/16 --node-lease-duration-seconds "${NODE_LEASE_SECONDS:-40}"
    await kwok 120 curl -sf "http://127.0.0.1:$KWOK_PORT/healthz"
  }
  start_kwok

  echo "$(date -u +%FT%TZ) control plane up"
  touch "$dir/ready"
  while true; do check_alive; sleep 0.2; done
fi

[ "$cmd" = start ] || usage

# ---------------------------------------------------------------------------------------------
# start: prepare DIR (PKI, tokens, kubeconfigs, free ports), launch the supervisor, create nodes.
[ -n "$bin" ] || bin="$("$here/build.sh")" || fail "the control plane binaries are not built (see above)"
for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok; do
  [ -x "$bin/$b" ] || fail "$b not found in $bin (run src/test/realcluster/build.sh)"
done
for tool in openssl curl python3 setsid; do command -v "$tool" >/dev/null || fail "$tool not found on PATH"; done
[ "$nodes" -ge "$gpu_nodes" ] 2>/dev/null || fail "--nodes ($nodes) must be a number >= --gpu-nodes ($gpu_nodes)"
[ -z "$kwok_parallelism" ] || [ "$kwok_parallelism" -ge 1 ] 2>/dev/null \
  || fail "--kwok-parallelism takes a number >= 1, not '$kwok_parallelism'"
if [ -f "$dir/supervisor.pid" ] && group_alive "$(cat "$dir/supervisor.pid")"; then
  fail "a cluster is already running in $dir (stop it first: $here/cluster.sh stop --dir $dir)"
fi
mkdir -p "$dir"; dir="$(cd "$dir" && pwd)"
rm -rf "$dir/etcd" "$dir/logs" "$dir/pki" "$dir/kwok-home" "$dir/ready" "$dir/failed" "$dir/pids" "$dir/restart"
mkdir -p "$dir/logs" "$dir/pki"

free_ports() { python3 - "$1" <<'PY'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks: s.close()
PY
}
read -r ETCD_PORT ETCD_PEER_PORT ETCD_METRICS_PORT APISERVER_PORT KCM_PORT SCHEDULER_PORT KWOK_PORT <<<"$(free_ports 7)"

# PKI: a CA, the API server's serving certificate for loopback, the service-account key pair.
pki() (
  cd "$dir/pki"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj "/CN=stallwatch-realcluster-ca"
  openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver"
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.96.0.1\n' > san.ext
  openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 30 -extfile san.ext
  openssl genrsa -out sa.key 2048
  openssl rsa -in sa.key -pubout -out sa.pub
)
pki >"$dir/logs/pki.log" 2>&1 || fail "openssl could not create the cluster's certificates (log: $dir/logs/pki.log)"

token() { python3 -c 'import secrets; print(secrets.token_hex(16))'; }
ADMIN_TOKEN=$(token); KCM_TOKEN=$(token); SCHEDULER_TOKEN=$(token)
cat > "$dir/pki/tokens.csv" <<CSV
$ADMIN_TOKEN,stallwatch-admin,stallwatch-admin,system:masters
$KCM_TOKEN,system:kube-controller-manager,system:kube-controller-manager
$SCHEDULER_TOKEN,system:kube-scheduler,system:kube-scheduler
CSV
kubeconfig() { # FILE USER TOKEN
  cat > "$1" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: realcluster
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority: $dir/pki/ca.crt
users:
- name: $2
  user:
    token: $3
contexts:
- name: realcluster
  context: {cluster: realcluster, user: $2}
current-context: realcluster
YAML
}
kubeconfig "$dir/kubeconfig" stallwatch-admin "$ADMIN_TOKEN"
kubeconfig "$dir/kube-controller-manager.kubeconfig" system:kube-controller-manager "$KCM_TOKEN"
kubeconfig "$dir/kube-scheduler.kubeconfig" system:kube-scheduler "$SCHEDULER_TOKEN"

cat > "$dir/env" <<ENV
BIN=$bin
OWNER_PID=$owner_pid
ADMIN_TOKEN=$ADMIN_TOKEN
ETCD_PORT=$ETCD_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
ETCD_METRICS_PORT=$ETCD_METRICS_PORT
APISERVER_PORT=$APISERVER_PORT
KCM_PORT=$KCM_PORT
SCHEDULER_PORT=$SCHEDULER_PORT
KWOK_PORT=$KWOK_PORT
KWOK_CONFIG=$here/kwok/stages.yaml
AUDIT_POLICY=${STALLWATCH_AUDIT_POLICY:-}
APISERVER_EXTRA_FLAGS="${STALLWATCH_APISERVER_FLAGS:-}"
KCM_EXTRA_FLAGS="${STALLWATCH_KCM_FLAGS:-}"
NODE_LEASE_SECONDS=${STALLWATCH_NODE_LEASE_SECONDS:-40}
KWOK_OPTIONS=$( [ -n "$kwok_parallelism" ] && echo "$dir/kwok-options.yaml" )
ENV

# kwok's own options, only to raise its parallelism. A KwokConfiguration read from a file is not
# defaulted by kwok v0.8.0 (a parallelism left out would be 0), so every option it defaults is
# spelled out with kwok's default value; the flags above still override the rest.
if [ -n "$kwok_parallelism" ]; then
  cat > "$dir/kwok-options.yaml" <<YAML
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  cidr: 10.244.0.0/16
  manageAllNodes: false
  enableDebuggingHandlers: true
  enableContentionProfiling: false
  enableProfilingHandler: true
  podPlayStageParallelism: $kwok_parallelism
  nodePlayStageParallelism: $kwok_parallelism
  nodeLeaseParallelism: $kwok_parallelism
  podsOnNodeSyncParallelism: 1
  enablePodsOnNodeSyncListPager: true
  enablePodsOnNodeSyncStreamWatch: false
YAML
fi

setsid bash "$here/cluster.sh" _supervise --dir "$dir" </dev/null >/dev/null 2>&1 &
echo "$!" > "$dir/supervisor.pid"
disown "$!" # its end (it kills its own group) is no job report of ours
trap 'stop_cluster' INT TERM

deadline=$(( $(date +%s) + timeout ))
until [ -f "$dir/ready" ]; do
  if [ -f "$dir/failed" ]; then msg=$(cat "$dir/failed"); stop_cluster; fail "$msg"; fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    stop_cluster; fail "the control plane was not up after ${timeout}s (logs: $dir/logs/)"
  fi
  sleep 0.25
done

# Nodes: kwok plays their kubelets. GPU nodes (the first --gpu-nodes) offer nvidia.com/gpu.
kubectl_() { "$bin/kubectl" --kubeconfig "$dir/kubeconfig" "$@"; }
nodes_yaml() {
  local i gpu
  for ((i=0; i<nodes; i++)); do
    gpu=""; [ "$i" -lt "$gpu_nodes" ] && gpu=$'\n      nvidia.com/gpu: "4"'
    cat <<YAML
---
apiVersion: v1
kind: Node
metadata:
  name: node-$i
  labels:
    kubernetes.io/hostname: node-$i
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    type: kwok$( [ -n "$gpu" ] && printf '\n    nvidia.com/gpu.present: "true"' )
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
status:
  allocatable: &resources
      cpu: "32"
      memory: 256Gi
      pods: "110"$gpu
  capacity: *resources
YAML
  done
}
if [ "$nodes" -gt 0 ]; then
  nodes_yaml | kubectl_ create -f - >"$dir/logs/nodes.log" 2>&1 \
    || { stop_cluster; fail "creating $nodes nodes failed (log: $dir/logs/nodes.log)"; }
  kubectl_ wait --for=condition=Ready node --all --timeout="${timeout}s" >>"$dir/logs/nodes.log" 2>&1 \
    || { stop_cluster; fail "nodes not Ready after ${timeout}s (log: $dir/logs/kwok.log)"; }
fi
trap - INT TERM
say "up: KUBECONFIG=$dir/kubeconfig ($nodes nodes, $gpu_nodes with nvidia.com/gpu; stop: $here/cluster.sh stop --dir $dir)"
