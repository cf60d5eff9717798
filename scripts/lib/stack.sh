# shellcheck shell=bash
# scripts/lib/stack.sh - start and stop the whole MQ-IMS bridge stack on loopback, for scripts
# (scripts/demo, bench/...). Source it from bash; it sets no shell options of its own.
#
#   source scripts/lib/stack.sh
#   stack_start LOGDIR BIN || exit 8     # BIN: the apps folder (BIN/NAME/NAME), e.g. build/default/apps
#   ... imsreq -m "$STACK_QM" ...      # IMSBRIDGE_PREFIX is exported: -m QM finds the queue manager
#   stack_stop || exit 8
#
# stack_start LOGDIR BIN
#   1. crtmqm -u SYSTEM.DEAD.LETTER.QUEUE $STACK_QM, then runmqsc $STACK_QM < examples/imsbridge/bridge.mqsc
#      (then the file $STACK_MQSC when set), in the prefix $STACK_PREFIX (LOGDIR/mqm unless set before).
#   2. xcfhub --listen 127.0.0.1:0 --port-file ...       (the system picks a free port: $STACK_HUB_PORT)
#   3. imsemu --config examples/imsemu/ivp.def --hub 127.0.0.1:$STACK_HUB_PORT --state LOGDIR/ims-state
#      --no-console --command-socket $STACK_IMS_SOCK "${STACK_IMSEMU_OPTS[@]}"; waits for IMB5080I.
#   4. imsbridge --config examples/imsbridge/imsbridge.ini --qmgr.connect=local:$STACK_QM (the queue
#      manager runs inside imsbridge and serves its bindings socket, so mqput/mqget/imsreq -m QM reach it)
#      --qmgr.prefix --xcf.url=tcp://127.0.0.1:PORT --otmacon.member=$STACK_MEMBER --bridge.console=no
#      --bridge.control-socket=$STACK_SOCK "${STACK_BRIDGE_OPTS[@]}"; then waits until DISPLAY PARTNER shows
#      the IMS partner STATE(ACTIVE) and DISPLAY QUEUE shows every bridge queue STATE(RUNNING).
#   Each step prints one IMB4954I line (what started, its process ID and log); a failure prints IMB4956E
#   naming the step and the log to read, stops what was started and returns 1. Nothing listens beyond
#   127.0.0.1; sockets are in a fresh folder under /tmp, so two stacks at once do not collide.
#
# stack_stop
#   Stops what stack_start started, in order: imsbridge (its STOP command through the control socket,
#   else SIGTERM), imsemu (SIGTERM), xcfhub (SIGTERM); each gets 30 s, then SIGKILL. Prints IMB4955I
#   "NAME stopped: exit status 0" for a clean stop, IMB4957E otherwise; returns 0 only when all three
#   stopped cleanly. Removes the socket folder; keeps LOGDIR (logs, queue manager, IMS state). Safe to call
#   twice, or from a trap after a failed stack_start (it stops only what runs).
#   Call stack_start and stack_stop from the same shell (not inside $(...)): exit statuses come from wait.
#
# Set BEFORE stack_start to change the defaults (all optional):
#   STACK_QM           queue manager name (QMZ, as examples/imsbridge/imsbridge.ini)
#   STACK_MEMBER       the bridge's XCF member name (MQXCF1: ivp.def's destination descriptors name it)
#   STACK_PREFIX       the MQ data folder (LOGDIR/mqm); must not hold STACK_QM already
#   STACK_MQSC         a file of more MQSC commands, run after bridge.mqsc
#   STACK_IMS_CONFIG   imsemu's definitions (examples/imsemu/ivp.def)
#   STACK_BRIDGE_OPTS  bash array: more imsbridge options (--bridge.cm1-window=8 ...)
#   STACK_IMSEMU_OPTS  bash array: more imsemu options (--fault "NAK 0030" ...)
#   STACK_WAIT_S       seconds to wait for each process to be ready (60)
#
# Set BY stack_start (read them; do not change them):
#   STACK_LOGDIR       LOGDIR: xcfhub.log imsemu.log imsbridge.log crtmqm.log runmqsc.log (stdout+stderr)
#   STACK_BIN          BIN
#   STACK_QM STACK_MEMBER STACK_PREFIX  as above; IMSBRIDGE_PREFIX=$STACK_PREFIX is exported
#   STACK_HUB_PORT     xcfhub's port on 127.0.0.1
#   STACK_SOCK         imsbridge's control socket: $BIN/imsbridge/imsbridge --command "$STACK_SOCK" 'DISPLAY TPIPE'
#   STACK_IMS_SOCK     imsemu's command socket: $BIN/imsemu/imsemu --command "$STACK_IMS_SOCK" '/DIS OTMA'
#   STACK_TMP          the socket folder (removed by stack_stop); IMSBRIDGE_RUNTIME_DIR=$STACK_TMP/run is
#                      exported (the queue manager's bindings socket)
#   STACK_HUB_PID STACK_IMS_PID STACK_BRIDGE_PID  process IDs (empty once stopped)
#   STACK_GROUP STACK_IMS_MEMBER  XCFGRP1 and IMSA (ivp.def's IMS statement)
# Helpers: stack_bridge_cmd TEXT (imsbridge --command), stack_ims_cmd TEXT (imsemu --command).

STACK_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

stack__say() { printf '%s\n' "$*"; }

# stack__wait_for TIMEOUT_S PID COMMAND...: polls COMMAND every 0.1 s until it succeeds; 1 when the
# process PID ends first or the time runs out.
stack__wait_for() {
  local timeout=$1 pid=$2
  shift 2
  local deadline=$((SECONDS + timeout))
  while ! "$@"; do
    if ! kill -0 "$pid" 2>/dev/null; then return 1; fi
    if [ "$SECONDS" -ge "$deadline" ]; then return 1; fi
    sleep 0.1
  done
}

stack__fail() {  # STEP LOG
  stack__say "IMB4956E stack: $1 failed; read $2"
  if [ -f "$2" ]; then tail -n 5 "$2" | sed 's/^/    | /'; fi
  stack_stop >/dev/null 2>&1 || true
  return 1
}

stack__hub_port_ready() { [ -s "$STACK_TMP/hub.port" ]; }
stack__ims_ready() { grep -q 'IMB5080I' "$STACK_LOGDIR/imsemu.log" 2>/dev/null; }
stack__bridge_ready() {
  local p q
  p=$(stack_bridge_cmd 'DISPLAY PARTNER' 2>/dev/null) || return 1
  q=$(stack_bridge_cmd 'DISPLAY QUEUE' 2>/dev/null) || return 1
  grep -q "PARTNER(${STACK_GROUP}.${STACK_IMS_MEMBER}) STATE(ACTIVE)" <<<"$p" || return 1
  grep -q 'IMB2031I QUEUE(' <<<"$q" || return 1
  ! grep 'IMB2031I QUEUE(' <<<"$q" | grep -qv 'STATE(RUNNING)'
}

stack_bridge_cmd() { "$STACK_BIN/imsbridge/imsbridge" --command "$STACK_SOCK" "$1"; }
stack_ims_cmd() { "$STACK_BIN/imsemu/imsemu" --command "$STACK_IMS_SOCK" "$1"; }

stack_start() {
  if [ $# -ne 2 ]; then
    stack__say "IMB4956E stack: usage: stack_start LOGDIR BIN"
    return 1
  fi
  STACK_LOGDIR=$1
  STACK_BIN=$(cd "$2" 2>/dev/null && pwd) || {
    stack__say "IMB4956E stack: no apps folder $2"
    return 1
  }
  local p
  for p in crtmqm runmqsc xcfhub imsemu imsbridge; do
    if [ ! -x "$STACK_BIN/$p/$p" ]; then
      stack__say "IMB4956E stack: $STACK_BIN/$p/$p is missing: build it first"
      return 1
    fi
  done
  mkdir -p "$STACK_LOGDIR" || return 1
  STACK_LOGDIR=$(cd "$STACK_LOGDIR" && pwd)
  STACK_QM=${STACK_QM:-QMZ}
  STACK_MEMBER=${STACK_MEMBER:-MQXCF1}
  STACK_PREFIX=${STACK_PREFIX:-$STACK_LOGDIR/mqm}
  STACK_GROUP=XCFGRP1
  STACK_IMS_MEMBER=IMSA
  local wait_s=${STACK_WAIT_S:-60}
  STACK_HUB_PID='' STACK_IMS_PID='' STACK_BRIDGE_PID=''
  STACK_TMP=$(mktemp -d /tmp/imsb-stack.XXXXXX) || return 1
  STACK_SOCK=$STACK_TMP/bridge.sock
  STACK_IMS_SOCK=$STACK_TMP/ims.sock
  mkdir -p "$STACK_PREFIX" "$STACK_TMP/run"
  export IMSBRIDGE_PREFIX=$STACK_PREFIX
  export IMSBRIDGE_RUNTIME_DIR=$STACK_TMP/run
  unset MQSERVER
  local L=$STACK_LOGDIR
  if [ -z "${STACK_BRIDGE_OPTS+x}" ]; then STACK_BRIDGE_OPTS=(); fi
  if [ -z "${STACK_IMSEMU_OPTS+x}" ]; then STACK_IMSEMU_OPTS=(); fi

  # 1. The queue manager and its objects.
  if ! "$STACK_BIN/crtmqm/crtmqm" -u SYSTEM.DEAD.LETTER.QUEUE "$STACK_QM" >"$L/crtmqm.log" 2>&1; then
    stack__fail "crtmqm $STACK_QM" "$L/crtmqm.log"
    return 1
  fi
  if ! { cat "$STACK_TOP/examples/imsbridge/bridge.mqsc" ${STACK_MQSC:+"$STACK_MQSC"}; } |
    "$STACK_BIN/runmqsc/runmqsc" "$STACK_QM" >"$L/runmqsc.log" 2>&1; then
    stack__fail "runmqsc $STACK_QM < examples/imsbridge/bridge.mqsc" "$L/runmqsc.log"
    return 1
  fi
  stack__say "IMB4954I stack: queue manager $STACK_QM created in $STACK_PREFIX (crtmqm, then runmqsc with" \
    "examples/imsbridge/bridge.mqsc)"

  # 2. xcfhub on a port the system picks.
  "$STACK_BIN/xcfhub/xcfhub" --listen 127.0.0.1:0 --port-file "$STACK_TMP/hub.port" \
    </dev/null >"$L/xcfhub.log" 2>&1 &
  STACK_HUB_PID=$!
  if ! stack__wait_for "$wait_s" "$STACK_HUB_PID" stack__hub_port_ready; then
    stack__fail "xcfhub start" "$L/xcfhub.log"
    return 1
  fi
  STACK_HUB_PORT=$(cat "$STACK_TMP/hub.port")
  stack__say "IMB4954I stack: xcfhub started (pid $STACK_HUB_PID) on 127.0.0.1:$STACK_HUB_PORT; log $L/xcfhub.log"

  # 3. The IMS emulator.
  "$STACK_BIN/imsemu/imsemu" --config "${STACK_IMS_CONFIG:-$STACK_TOP/examples/imsemu/ivp.def}" \
    --hub "127.0.0.1:$STACK_HUB_PORT" --state "$L/ims-state" --no-console \
    --command-socket "$STACK_IMS_SOCK" "${STACK_IMSEMU_OPTS[@]}" </dev/null >"$L/imsemu.log" 2>&1 &
  STACK_IMS_PID=$!
  if ! stack__wait_for "$wait_s" "$STACK_IMS_PID" stack__ims_ready; then
    stack__fail "imsemu start (no IMB5080I)" "$L/imsemu.log"
    return 1
  fi
  stack__say "IMB4954I stack: imsemu started (pid $STACK_IMS_PID) as IMS member $STACK_IMS_MEMBER of XCF group" \
    "$STACK_GROUP; log $L/imsemu.log"

  # 4. The bridge, with the queue manager inside it.
  "$STACK_BIN/imsbridge/imsbridge" --config "$STACK_TOP/examples/imsbridge/imsbridge.ini" \
    "--qmgr.connect=local:$STACK_QM" "--qmgr.prefix=$STACK_PREFIX" "--xcf.url=tcp://127.0.0.1:$STACK_HUB_PORT" \
    "--otmacon.member=$STACK_MEMBER" --bridge.console=no "--bridge.control-socket=$STACK_SOCK" \
    "${STACK_BRIDGE_OPTS[@]}" </dev/null >"$L/imsbridge.log" 2>&1 &
  STACK_BRIDGE_PID=$!
  if ! stack__wait_for "$wait_s" "$STACK_BRIDGE_PID" stack__bridge_ready; then
    stack__fail "imsbridge start (partner not ACTIVE or a bridge queue not RUNNING)" "$L/imsbridge.log"
    return 1
  fi
  stack__say "IMB4954I stack: imsbridge started (pid $STACK_BRIDGE_PID) with queue manager $STACK_QM inside it" \
    "(qmgr.connect=local:$STACK_QM), XCF member $STACK_MEMBER; partner $STACK_GROUP.$STACK_IMS_MEMBER ACTIVE;" \
    "log $L/imsbridge.log"
  return 0
}

# stack__stop_one NAME PID: waits up to 30 s for PID to end (SIGKILL after), reports its exit status.
stack__stop_one() {
  local name=$1 pid=$2 rc deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    stack__say "IMB4957E stack: $name (pid $pid) did not stop within 30 s and was killed; read" \
      "$STACK_LOGDIR/$name.log"
    return 1
  fi
  rc=0
  wait "$pid" 2>/dev/null || rc=$?
  if [ "$rc" -eq 0 ]; then
    stack__say "IMB4955I stack: $name stopped: exit status 0"
    return 0
  fi
  stack__say "IMB4957E stack: $name stopped with exit status $rc; read $STACK_LOGDIR/$name.log"
  return 1
}

stack_stop() {
  local status=0
  if [ -n "${STACK_BRIDGE_PID:-}" ]; then
    # STOP quiesces the bridge as SIGTERM does; SIGTERM when the control socket does not answer. Nothing
    # when it is stopping already (IMB2052I: Ctrl-C reached it too): a second signal during its quiesce
    # would end it by the signal once it has stopped (exit status 143).
    if kill -0 "$STACK_BRIDGE_PID" 2>/dev/null &&
      ! grep -q 'IMB2052I' "$STACK_LOGDIR/imsbridge.log" 2>/dev/null; then
      stack_bridge_cmd STOP >/dev/null 2>&1 || kill -TERM "$STACK_BRIDGE_PID" 2>/dev/null
    fi
    stack__stop_one imsbridge "$STACK_BRIDGE_PID" || status=1
    STACK_BRIDGE_PID=''
  fi
  if [ -n "${STACK_IMS_PID:-}" ]; then
    kill -TERM "$STACK_IMS_PID" 2>/dev/null
    stack__stop_one imsemu "$STACK_IMS_PID" || status=1
    STACK_IMS_PID=''
  fi
  if [ -n "${STACK_HUB_PID:-}" ]; then
    kill -TERM "$STACK_HUB_PID" 2>/dev/null
    stack__stop_one xcfhub "$STACK_HUB_PID" || status=1
    STACK_HUB_PID=''
  fi
  if [ -n "${STACK_TMP:-}" ] && [ -d "$STACK_TMP" ]; then
    rm -rf "$STACK_TMP"
    STACK_TMP=''
  fi
  return $status
}
