#!/usr/bin/env bash
# The Azure CLI leg of the conformance suite: logs in to the emulator as to
# a private cloud (az cloud register + az login --service-principal, as
# docs/azure-cli.md shows) and runs typical commands, each with the outcome
# ARM gives: success, or ARM's error code. Prints one line per command and
# "N passed, M failed"; exits 1 when any command behaved otherwise.
#
# Where az is not installed it says so and exits 0 having run nothing: a
# skip, never counted as a pass (install it with `apt-get install
# azure-cli`).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v az >/dev/null 2>&1; then
  echo "SKIPPED: the Azure CLI leg of the conformance suite did not run: az is not installed (apt-get install azure-cli)"
  exit 0
fi

work="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/arm-emulator" ./cmd/arm-emulator
# MSAL insists on HTTPS authorities: the emulator serves TLS with a
# certificate it writes, which az trusts through REQUESTS_CA_BUNDLE.
"$work/arm-emulator" --addr 127.0.0.1:0 --lro 200ms --tls-cert-dir "$work/tls" >"$work/emulator.log" 2>&1 &
pid=$!
url=""
for _ in $(seq 1 100); do
  url="$(sed -n 's/^arm-emulator listening on \([^ ]*\).*/\1/p' "$work/emulator.log")"
  [ -n "$url" ] && break
  if ! kill -0 "$pid" 2>/dev/null; then cat "$work/emulator.log" >&2; exit 1; fi
  sleep 0.1
done
[ -n "$url" ] || { echo "conformance-az: the emulator did not start" >&2; cat "$work/emulator.log" >&2; exit 1; }

# A private profile: nothing of the user's own az login is read or changed.
export AZURE_CONFIG_DIR="$work/az" REQUESTS_CA_BUNDLE="$work/tls/cert.pem"
export AZURE_CORE_COLLECT_TELEMETRY=false AZURE_CORE_NO_COLOR=true AZURE_CORE_ONLY_SHOW_ERRORS=true

passed=0 failed=0
# check WANT NAME -- AZ-ARGS...: WANT is ok, or the ARM error code az must
# print; NAME describes the command.
check() {
  local want=$1 name=$2
  shift 3
  local out rc=0
  out="$(timeout 120 az "$@" -o json 2>&1)" || rc=$?
  if [ "$want" = ok ] && [ $rc -eq 0 ]; then
    passed=$((passed + 1)); echo "ok   $name"
  elif [ "$want" != ok ] && [ $rc -ne 0 ] && grep -q "($want)\|Code: $want" <<<"$out"; then
    passed=$((passed + 1)); echo "ok   $name (refused: $want)"
  else
    failed=$((failed + 1))
    echo "FAIL $name: want $want, az exited $rc: $(grep -m1 -E 'ERROR|Error|Code:' <<<"$out" || head -c 300 <<<"$out")"
  fi
}
# value NAME JMESPATH WANT -- AZ-ARGS...: the command succeeds and its
# --query answer is WANT.
value() {
  local name=$1 query=$2 want=$3
  shift 4
  local got rc=0
  got="$(timeout 120 az "$@" --query "$query" -o tsv 2>&1)" || rc=$?
  if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name: want $want, got (exit $rc) $(head -c 300 <<<"$got")"
  fi
}

sub=00000000-0000-0000-0000-000000000001
check ok "cloud register (GET /metadata/endpoints)" -- cloud register -n emulator --endpoint-resource-manager "$url/" --suffix-storage-endpoint core.windows.net --suffix-keyvault-dns .vault.azure.net
check ok "cloud set" -- cloud set -n emulator
check ok "login as a service principal (ADFS authority)" -- login --service-principal -u app-id -p not-a-real-secret --tenant adfs
value "account show lists the emulator's subscription" id "$sub" -- account show
value "account list" "length(@)" 1 -- account list

g=rg-azcli
check ok "group create" -- group create -n $g -l westus2 --tags env=test
value "group exists" "@" true -- group exists -n $g
value "group show" location westus2 -- group show -n $g
check ok "group update --tags" -- group update -n $g --tags env=test owner=platform
value "group list" "[?name=='$g'] | length(@)" 1 -- group list

check ok "storage account create" -- storage account create -g $g -n stazcliconf01 -l westus2 --sku Standard_LRS --kind StorageV2
value "storage account show" provisioningState Succeeded -- storage account show -g $g -n stazcliconf01
check ok "storage account update --min-tls-version" -- storage account update -g $g -n stazcliconf01 --min-tls-version TLS1_2
value "storage account keys list" "length(@)" 2 -- storage account keys list -g $g -n stazcliconf01
value "storage account check-name (taken)" nameAvailable false -- storage account check-name -n stazcliconf01
value "storage account list" "length(@)" 1 -- storage account list -g $g

check ok "identity create" -- identity create -g $g -n id-azcli
value "identity show: principalId set" "length(principalId) > \`0\`" true -- identity show -g $g -n id-azcli
check ok "resource tag" -- resource tag --tags x=y -g $g -n id-azcli --resource-type Microsoft.ManagedIdentity/userAssignedIdentities
value "resource show" "tags.x" y -- resource show -g $g -n id-azcli --resource-type Microsoft.ManagedIdentity/userAssignedIdentities
value "resource list -g" "length(@)" 2 -- resource list -g $g

check ok "monitor log-analytics workspace create" -- monitor log-analytics workspace create -g $g -n law-azcli
value "log-analytics get-shared-keys" "length(primarySharedKey) > \`0\`" true -- monitor log-analytics workspace get-shared-keys -g $g -n law-azcli
check ok "servicebus namespace create" -- servicebus namespace create -g $g -n sb-azcli-conf
check ok "servicebus queue create" -- servicebus queue create -g $g --namespace-name sb-azcli-conf -n q1
check ok "appservice plan create" -- appservice plan create -g $g -n plan-azcli --sku B1 --is-linux

# What services fill in and answer (pkg/emulator rpdefaults.go, webapp.go).
value "account show: managedByTenants" "length(managedByTenants)" 0 -- account show
value "list-locations: West Europe's pair" "[?name=='westeurope'].metadata.pairedRegion[0].name | [0]" northeurope -- account list-locations
value "storage account: encryption always on" encryption.keySource Microsoft.Storage -- storage account show -g $g -n stazcliconf01
value "storage account LRS: no secondary" "secondaryLocation" "" -- storage account show -g $g -n stazcliconf01
check ok "storage account create RAGRS" -- storage account create -g $g -n stazcliconf03 -l westeurope --sku Standard_RAGRS --kind StorageV2
value "storage account RAGRS: the region pair" secondaryLocation northeurope -- storage account show -g $g -n stazcliconf03
check ok "storage account delete RAGRS" -- storage account delete -g $g -n stazcliconf03 -y
value "servicebus queue defaults (az shows PT1M as 0:01:00)" "[maxDeliveryCount, lockDuration] | join(',', [to_string(@[0]), @[1]])" "10,0:01:00" -- servicebus queue show -g $g --namespace-name sb-azcli-conf -n q1
check ok "servicebus topic create" -- servicebus topic create -g $g --namespace-name sb-azcli-conf -n t1
value "servicebus topic subscription defaults" maxDeliveryCount 10 -- servicebus topic subscription create -g $g --namespace-name sb-azcli-conf --topic-name t1 -n s1
check ok "eventhubs namespace create" -- eventhubs namespace create -g $g -n eh-azcli-conf -l westus2
value "eventhubs eventhub partitionIds" "length(partitionIds)" 3 -- eventhubs eventhub create -g $g --namespace-name eh-azcli-conf -n hub1 --partition-count 3
value "monitor diagnostic-settings categories list" "value[?name=='Audit'] | [0].categoryType" Logs -- monitor diagnostic-settings categories list --resource "/subscriptions/$sub/resourceGroups/$g/providers/Microsoft.OperationalInsights/workspaces/law-azcli"
value "webapp list-runtimes (webAppStacks)" "length(@) > \`0\`" true -- webapp list-runtimes --os linux
check ok "webapp create" -- webapp create -g $g -p plan-azcli -n app-azcli-conf --runtime "PYTHON:3.11"
value "webapp config appsettings list (slotConfigNames)" "length(@)" 0 -- webapp config appsettings list -g $g -n app-azcli-conf
value "webapp deployment list-publishing-profiles (publishxml)" "[?publishMethod=='MSDeploy'] | [0].msdeploySite" app-azcli-conf -- webapp deployment list-publishing-profiles -g $g -n app-azcli-conf

check ok "tag create (PUT tagNames)" -- tag create --name costCenter
check ok "tag add-value" -- tag add-value --name costCenter --value 42
value "tag list" "[?tagName=='env'] | [0].count.value" 1 -- tag list
check TagNameInUse "tag delete of a name in use" -- tag delete --name env -y

# A template deployment deploys (the template file has a comment, which
# az sends as it is and ARM accepts).
cat >"$work/template.json" <<'JSON'
{
  // deployed by the conformance suite
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {"name": {"type": "string", "defaultValue": "stazcliconf02"}},
  "resources": [{"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "[parameters('name')]",
                 "location": "[resourceGroup().location]", "sku": {"name": "Standard_LRS"}, "kind": "StorageV2", "properties": {}}],
  "outputs": {"blob": {"type": "string", "value": "[concat('https://', parameters('name'), '.blob.core.windows.net/')]"}}
}
JSON
value "deployment group create" properties.outputs.blob.value "https://stazcliconf02.blob.core.windows.net/" -- deployment group create -g $g -f "$work/template.json"
value "deployment group show" properties.provisioningState Succeeded -- deployment group show -g $g -n template
value "the deployed storage account" provisioningState Succeeded -- storage account show -g $g -n stazcliconf02
value "resource list -g leaves deployments out" "[?type=='Microsoft.Resources/deployments'] | length(@)" 0 -- resource list -g $g
check ok "storage account delete (deployed)" -- storage account delete -g $g -n stazcliconf02 -y

check ok "lock create" -- lock create -n lock-azcli -g $g --lock-type CanNotDelete
value "lock list" "length(@)" 1 -- lock list -g $g
check ScopeLocked "group delete refused by a lock" -- group delete -n $g -y
check ok "lock delete" -- lock delete -n lock-azcli -g $g

check ok "storage account delete" -- storage account delete -g $g -n stazcliconf01 -y
check ResourceNotFound "storage account show after delete" -- storage account show -g $g -n stazcliconf01
check ok "group delete" -- group delete -n $g -y
value "group exists after delete" "@" false -- group exists -n $g
check ResourceGroupNotFound "group show after delete" -- group show -n $g

# Not run, with the reason (the client, not the emulator):
#   az network ...            Debian's azure-cli 2.45 lacks the network SDK
#                             module it imports (azure.mgmt.network
#                             v2022_01_01): it fails the same against Azure.
#   az role definition list   the same packaging fault ('config' attribute).
#   az keyvault create        reads Microsoft Graph for the caller's object
#                             ID; the emulator serves no Graph.
echo "az: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
