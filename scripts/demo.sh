#!/bin/sh
# telform's main job on the examples, against the embedded emulator (no account needed):
# plan, apply (waiting for the 10DLC registry), then plan again to show the account converged.
# State: .telform/ (the emulator's data) and .telform/demo.state.json (the ledger); delete .telform/ to start over.
set -eu
cd "$(dirname "$0")/.."
set -a
. examples/demo-secrets.env
set +a
telform() { node dist/cli/main.js --endpoint local --state .telform/demo.state.json "$@"; }
mkdir -p .telform
echo '$ telform plan -f examples/'
telform plan -f examples/
echo
echo '$ telform apply -f examples/ --auto-approve --wait 2m'
telform apply -f examples/ --auto-approve --wait 2m
echo
echo '$ telform plan -f examples/'
telform plan -f examples/
