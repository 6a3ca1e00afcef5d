#!/usr/bin/env bash
# The telform step of the action: runs one command, writes a markdown report and the outputs
# (exit-code, report, planned). Inputs arrive as INPUT_* variables, never interpolated into code.
set -uo pipefail

command="${INPUT_COMMAND:?}"
manifests="${INPUT_MANIFESTS:-manifests}"
state="${INPUT_STATE:-telform.state.json}"
plan_file="${INPUT_PLAN_FILE:-telform-plan.json}"
approvals_file="${INPUT_APPROVALS_FILE:-telform.approvals}"
report="${RUNNER_TEMP:-/tmp}/telform-${command}.md"
if [ -n "${INPUT_ENDPOINT:-}" ]; then export TELFORM_ENDPOINT="$INPUT_ENDPOINT"; fi

output() { printf '%s=%s\n' "$1" "$2" >> "${GITHUB_OUTPUT:-/dev/null}"; }
output planned false
# An old report of the same command (a runner reused) must never pass for this run's.
rm -f "$report"

# Approvals are reviewed like the manifests: each line of the file is one approval flag, as telform
# plan takes it (--approval-flags reads it with telform's own declaration of every approval flag).
approvals=()
if [ -f "$approvals_file" ]; then approvals=(--approval-flags "$approvals_file"); fi
# Approvals bound to people (docs/approvals.md): the policy holding the approval rules, and the folder
# of the approvals reviewers signed (telform approve) and committed.
signed=()
if [ -n "${INPUT_POLICY:-}" ]; then signed=(--policy "$INPUT_POLICY" --approvals "${INPUT_APPROVALS_DIR:-telform-approvals}"); fi

status=0
case "$command" in
  plan)
    # Annotations on the pull request's diff, with or without credentials.
    telform validate -f "$manifests" --format github || status=$?
    if [ "$status" -ne 0 ]; then
      printf '### telform plan\n\nThe manifests are not valid; the problems are annotated on the changed files.\n' > "$report"
    elif [ -z "${TELFORM_AUTH_ID:-}" ] || [ -z "${TELFORM_AUTH_TOKEN:-}" ]; then
      # A pull request from a fork gets no secrets: its code never runs with the account's credentials.
      printf '### telform plan\n\nNot planned: this run has no API credentials (a pull request from a fork gets no secrets). The manifests are valid. A maintainer can push the branch to this repository to get a plan; nothing is applied without one.\n' > "$report"
    else
      # Every pull request's plan is rehearsed on a replica of the account unless the workflow says rehearse: false.
      plan_errors="${RUNNER_TEMP:-/tmp}/telform-plan.err"
      rehearse=()
      if [ "${INPUT_REHEARSE:-true}" = true ]; then rehearse=(--rehearse); fi
      telform plan -f "$manifests" --state "$state" -o "$plan_file" --format markdown "${approvals[@]}" "${signed[@]}" "${rehearse[@]}" > "$report" 2> "$plan_errors" || status=$?
      cat "$plan_errors" >&2
      if [ "$status" -eq 0 ]; then
        output planned true
      elif grep -q '^### Rehearsed on a replica of the account' "$report"; then
        # Planned, but the API refused part of it on the replica: the report says what, and the check fails.
        output planned true
      elif grep -q -- '--approval-flags' "$plan_errors"; then
        # A line of the approvals file that is not one approval flag: annotated on the file.
        sed 's/^error: --approval-flags /::error file='"${approvals_file}"'::/' "$plan_errors"
        printf '### telform plan\n\n`%s` has a line that is not an approval; see the annotation.\n' "$approvals_file" > "$report"
      else
        printf '### telform plan\n\nThe plan failed; the error is in the job log.\n' > "$report"
      fi
    fi
    ;;
  apply)
    errors="${RUNNER_TEMP:-/tmp}/telform-apply.err"
    telform show "$plan_file" --format text 2> "$errors" || status=$?
    if [ "$status" -ne 0 ]; then
      cat "$errors" >&2
      { printf '### telform apply: failed\n\nThe saved plan could not be read, so nothing was applied:\n\n```\n'; cat "$errors"; printf '```\n'; } > "$report"
    else
      telform apply "$plan_file" --state "$state" "${signed[@]}" 2> "$errors" | tee "${RUNNER_TEMP:-/tmp}/telform-apply.out" || status=$?
      cat "$errors" >&2
      if [ "$status" -eq 0 ]; then
        { printf '### telform apply\n\n```\n'; tail -n 1 "${RUNNER_TEMP:-/tmp}/telform-apply.out"; printf '```\n'; } > "$report"
      elif grep -q 'refused by the approval rules' "$errors"; then
        { printf '### telform apply: refused\n\nThe approval rules do not let the reviewed plan through now (docs/approvals.md), so nothing was applied:\n\n```\n'; cat "$errors"; printf '```\n\nThe missing approvers sign it (telform approve) in a new pull request, or the apply waits for the rule'"'"'s window.\n'; } > "$report"
      elif grep -q 'is stale\|was made for account' "$errors"; then
        { printf '### telform apply: refused\n\nThe reviewed plan no longer matches the account or the state, so nothing was applied and nothing was planned again:\n\n```\n'; cat "$errors"; printf '```\n\nTo go on, open a pull request (an empty commit is enough): its plan shows what the merged manifests still change, and merging it applies that plan.\n'; } > "$report"
      else
        { printf '### telform apply: failed\n\n```\n'; cat "$errors"; printf '```\n'; } > "$report"
      fi
    fi
    ;;
  drift)
    telform drift -f "$manifests" --state "$state" --format markdown > "$report" || status=$?
    ;;
  *)
    echo "::error::command must be plan, apply or drift (got \"${command}\")"
    exit 1
    ;;
esac
# The report output names a file only when this run wrote one.
if [ -f "$report" ]; then
  cat "$report"
  output report "$report"
fi
output exit-code "$status"
