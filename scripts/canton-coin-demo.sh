#!/usr/bin/env bash
# Canton Coin on a Ledgerline started with LEDGER_CANTON_COIN=dev: taps 1,000 CC for the validator operator, lets Alice
# propose a transfer preapproval (the validator's automation accepts it) and pays her 100 CC through it, over the JSON
# Ledger API and the Splice validator endpoints, as the user `validator`. Needs curl and jq.
#   LEDGERLINE_URL  the ledger (default http://localhost:7575)
#   TOKEN           a token for the user `validator` (default: `npm run -s ledgerctl -- token --user validator`)
set -euo pipefail
URL=${LEDGERLINE_URL:-http://localhost:7575}
if ! curl -s -o /dev/null "$URL/livez"; then
  echo "no Ledgerline answers at $URL: start it (LEDGER_CANTON_COIN=dev … npm start), or name it with LEDGERLINE_URL=http://host:port" >&2
  exit 1
fi
TOKEN=${TOKEN:-$(npm run -s ledgerctl -- token --user validator)}
api() { curl -sS --fail-with-body -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' "$URL$1" "${@:2}"; }

V=$(api /api/validator/v0/validator-user | jq -r .party_id)
RULES=$(api /api/validator/v0/scan-proxy/amulet-rules | jq -c .amulet_rules.contract)
# the round to use: of those open now, the one opened last (as the wallet SDK picks it); right after the start, round 0
# opens within a second
epoch='sub("\\.[0-9]+"; "") | fromdateiso8601'
until ROUND=$(api /api/validator/v0/scan-proxy/open-and-issuing-mining-rounds | jq -ce --argjson now "$(date -u +%s)" \
  "[.open_mining_rounds[].contract | select((.payload.opensAt | $epoch) < \$now and \$now < (.payload.targetClosesAt | $epoch))] | last"); do
  sleep 1
done

# submit PARTY COMMANDS [DISCLOSED]: submit-and-wait acting as PARTY; AmuletRules and the round are always disclosed
submit() {
  api /v2/commands/submit-and-wait -d "$(jq -nc --arg p "$1" --argjson c "$2" --argjson d "${3:-[]}" --argjson r "$RULES" --argjson o "$ROUND" \
    '{commands: $c, commandId: "demo-\(now)", userId: "validator", actAs: [$p],
      disclosedContracts: ([$r, $o] + $d | map({templateId: .template_id, contractId: .contract_id, createdEventBlob: .created_event_blob}))}')" >/dev/null
}
amulets() {
  local at; at=$(api /v2/state/ledger-end | jq .offset)
  api /v2/state/active-contracts -d "$(jq -nc --arg p "$1" --argjson at "$at" \
    '{activeAtOffset: $at, eventFormat: {filtersByParty: {($p): {cumulative: [{identifierFilter: {TemplateFilter: {value:
      {templateId: "#splice-amulet:Splice.Amulet:Amulet", includeCreatedEventBlob: false}}}}]}}, verbose: true}}')" |
    jq -c --arg p "$1" '[.[].contractEntry.JsActiveContract.createdEvent | select(.createArgument.owner == $p)]'
}

# 1. tap: AmuletRules_DevNet_Tap in the usable round
submit "$V" "$(jq -nc --arg v "$V" --argjson r "$RULES" --argjson o "$ROUND" \
  '[{ExerciseCommand: {templateId: $r.template_id, contractId: $r.contract_id, choice: "AmuletRules_DevNet_Tap",
     choiceArgument: {receiver: $v, amount: "1000.0", openRound: $o.contract_id}}}]')"
echo "validator $V holds $(amulets "$V" | jq -r 'map(.createArgument.amount.initialAmount) | join(", ")') CC"

# 2. Alice (the validator user may act as her) proposes a preapproval with the validator as provider; its automation accepts
ALICE=$(api /v2/parties -d '{"partyIdHint": "alice-'"$(date +%s)"'", "userId": "validator"}' | jq -r .partyDetails.party)
submit "$ALICE" "$(jq -nc --arg a "$ALICE" --arg v "$V" --argjson r "$RULES" \
  '[{CreateCommand: {templateId: "#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal",
     createArguments: {receiver: $a, provider: $v, expectedDso: $r.payload.dso}}}]')"
until PREAPPROVAL=$(api "/api/validator/v0/scan-proxy/transfer-preapprovals/by-party/$ALICE" 2>/dev/null | jq -c .transfer_preapproval.contract); do sleep 1; done

# 3. the validator pays Alice 100 CC through her preapproval (TransferPreapproval_Send), the rest comes back as change
INPUT=$(amulets "$V" | jq -r '.[0].contractId')
submit "$V" "$(jq -nc --arg v "$V" --arg in "$INPUT" --argjson p "$PREAPPROVAL" --argjson r "$RULES" --argjson o "$ROUND" \
  '[{ExerciseCommand: {templateId: $p.template_id, contractId: $p.contract_id, choice: "TransferPreapproval_Send",
     choiceArgument: {sender: $v, amount: "100.0", description: "demo", inputs: [{tag: "InputAmulet", value: $in}],
       context: {amuletRules: $r.contract_id, context: {openMiningRound: $o.contract_id, issuingMiningRounds: [],
         validatorRights: [], featuredAppRight: null}}}}}]')" "[$PREAPPROVAL]"
echo "alice $ALICE holds $(amulets "$ALICE" | jq -r 'map(.createArgument.amount.initialAmount) | join(", ")') CC"
echo "validator $V holds $(amulets "$V" | jq -r 'map(.createArgument.amount.initialAmount) | join(", ")') CC"
