#!/bin/sh
# telform's main job on the examples, against the embedded emulator (no account needed):
# plan, apply (waiting for the 10DLC registry), then plan again to show the account converged.
# It keeps its state where any later telform command in this folder finds it, as a user's own runs
# would: telform.state.json (the ledger, the default --state) and .telform/ (the embedded
# emulator's data). Run it again and it plans no change; delete both to start over.
set -eu
cd "$(dirname "$0")/.."
set -a
. examples/demo-secrets.env
set +a
# --endpoint local: the embedded emulator, also where CI is set (there it must be asked for).
telform() { node dist/cli/main.js --endpoint local "$@"; }
echo '$ telform plan -f examples/'
telform plan -f examples/
echo
echo '$ telform apply -f examples/ --auto-approve --wait 2m'
telform apply -f examples/ --auto-approve --wait 2m
echo
echo '$ telform plan -f examples/'
telform plan -f examples/
echo
echo 'State: telform.state.json (the ledger) and .telform/ (the emulator). With the demo secrets loaded'
echo '(set -a; . examples/demo-secrets.env; set +a), `telform plan -f examples/` here plans no change'
echo 'and `telform state list` lists what the demo made.'
