#!/usr/bin/env bash
# demo_script (ctest, label demo): runs scripts/demo as written, with this build's programs
# (IMSB_DEMO_BIN: no set-up, no build) and a log folder of its own, then checks its output for what each
# step must show, that every process it started stopped with exit status 0 and is gone, and the exit
# status 0. Also: an unknown option is IMB4952E with exit 2, and the checks themselves fail when a line
# they look for is missing (so a wrong demo cannot pass).
#   bash tests/e2e/demo/demo_test.sh SCRIPTS_DEMO APPS_DIR
set -uo pipefail
demo=${1:?usage: demo_test.sh SCRIPTS_DEMO APPS_DIR}
apps=${2:?usage: demo_test.sh SCRIPTS_DEMO APPS_DIR}
work=$(mktemp -d /tmp/imsb-demo-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0
bad() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# What the output must hold: one fixed string a line, each at least as often as the number before it.
required() {
  cat <<'EOF'
1	IMB4954I stack: imsbridge started
1	partner XCFGRP1.IMSA ACTIVE
3	ENTRY WAS ADDED                         LAST
2	ENTRY WAS DISPLAYED                     LAST1     FIRST1    8-111-2222D01/R01
1	ENTRY WAS DISPLAYED                     LAST2     FIRST2    8-111-3333D02/R02
1	ENTER FIRST NAME, EXTENSION AND ZIP
2	MQIIH TranState=C TranInstanceId=
1	ENTRY WAS ADDED                         LASTCV    FIRSTCV   8-111-4444D03/R03
1	DFS000I MEMBER/TPIPE
1	DFS000I MQXCF1
1	DFS000I     CSQ0001N
1	DFS000I     CSQ0001S
1	IMB2032I TPIPE(CSQ0001S)
1	DFS1288E DESTINATION IVTNOLT IS AN LTERM, NOT A TRANSACTION
1	MQMT_REPORT
1	Feedback               294 (X'00000126')  = MQFB_BUFFER_OVERFLOW
1	Reason                 294 (X'00000126')  = MQFB_BUFFER_OVERFLOW
1	IMB4006W LLZZ[1].LL
1	MQFB                     294 (X'00000126')  = MQFB_BUFFER_OVERFLOW
1	DLQ(1)
1	IMB4955I stack: imsbridge stopped: exit status 0
1	IMB4955I stack: imsemu stopped: exit status 0
1	IMB4955I stack: xcfhub stopped: exit status 0
1	IMB4958I demo: done
EOF
}

# check FILE: prints what is missing; status 1 when anything is.
check() {
  local file=$1 status=0 n text count
  while IFS=$'\t' read -r n text; do
    count=$(grep -cF -- "$text" "$file")
    if [ "$count" -lt "$n" ]; then
      echo "  missing: '$text' (${count} times, expected at least $n)"
      status=1
    fi
  done < <(required)
  for text in IMB4953E IMB4956E IMB4957E IMB4959W; do
    if grep -qF "$text" "$file"; then
      echo "  present: $text"
      status=1
    fi
  done
  # The conversation ends: the reply to its last step is out of conversation.
  if ! grep -A1 -F 'ENTRY WAS ADDED                         LASTCV' "$file" | grep -qF "MQIIH TranState=' '"; then
    echo "  the conversation's last reply is not TranState=' '"
    status=1
  fi
  # /DIS TMEMBER after the conversation ended: no Tpipe in conversation any more.
  if grep -F 'DFS000I     CSQ0001N' "$file" | grep -qF CONV; then
    echo "  CSQ0001N still shows CONV"
    status=1
  fi
  return $status
}

# 1. The demo as written.
out=$work/demo.out
t0=$SECONDS
IMSB_DEMO_BIN=$apps "$demo" --logs "$work/logs" >"$out" 2>&1
rc=$?
took=$((SECONDS - t0))
echo "scripts/demo: exit status $rc in $took s"
[ "$rc" -eq 0 ] || bad "scripts/demo exited with $rc"
[ "$took" -lt 120 ] || bad "scripts/demo took $took s (limit 120)"
if ! why=$(check "$out"); then bad "the demo's output lacks what it must show:"$'\n'"$why"; fi
# Every process it started is gone (their IDs are in the IMB4954I lines).
while read -r pid; do
  if kill -0 "$pid" 2>/dev/null; then bad "process $pid is still running after the demo"; fi
done < <(sed -n 's/^IMB4954I stack: [a-z]* started (pid \([0-9]*\)).*/\1/p' "$out")
for f in xcfhub.log imsemu.log imsbridge.log; do
  [ -s "$work/logs/$f" ] || bad "the log folder has no $f"
done
grep -qF "$work/logs" "$out" || bad "the demo does not name its log folder"

# 2. The checks catch a wrong demo: each line of `required` removed makes check fail.
while IFS=$'\t' read -r _ text; do
  grep -vF -- "$text" "$out" >"$work/mutant.out"
  if check "$work/mutant.out" >/dev/null; then bad "check passes without '$text'"; fi
done < <(required)

# 3. Usage errors.
IMSB_DEMO_BIN=$apps "$demo" --frobnicate >"$work/usage.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || bad "an unknown option gave exit status $rc (expected 2)"
grep -qF IMB4952E "$work/usage.out" || bad "an unknown option does not print IMB4952E"
"$demo" --help >"$work/help.out" 2>&1 || bad "scripts/demo --help failed"
grep -qF -- "--no-build" "$work/help.out" || bad "scripts/demo --help does not describe --no-build"

if [ $failures -ne 0 ]; then
  echo "--- the demo's output"
  cat "$out"
  echo "demo_script: $failures failure(s)"
  exit 1
fi
echo "demo_script: passed"
