package armid

import (
	"sort"
	"strings"
)

// builtinRoles are Azure's built-in role definitions by ID, with their
// names (the IDs are the same in every tenant). Source: Microsoft Learn
// "Azure built-in roles" (learn.microsoft.com/azure/role-based-access-control/
// built-in-roles, whose table lists name and ID; its translated copies in
// MicrosoftDocs carry the same IDs). Every entry was checked against that
// table and against public templates that assign the role by ID; the AKS
// RBAC Writer ID written from memory was wrong and is corrected here.
var builtinRoles = map[string]string{
	"8e3af657-a8ff-443c-a75c-2fe8c4bcb635": "Owner",
	"b24988ac-6180-42a0-ab88-20f7382dd24c": "Contributor",
	"acdd72a7-3385-48ef-bd42-f606fba81ae7": "Reader",
	"18d7d88d-d35e-4fb5-a5c3-7773c20a72d9": "User Access Administrator",
	"423170ca-a8f6-4b0f-8487-9e4eb8f49bfa": "Azure Maps Data Reader",
	"f58310d9-a9f6-439a-9e8d-f62e7b41a168": "Role Based Access Control Administrator",
	"ba92f5b4-2d11-453d-a403-e96b0029c9fe": "Storage Blob Data Contributor",
	"2a2b9908-6ea1-4ae2-8e65-a410df84e7d1": "Storage Blob Data Reader",
	"b7e6dc6d-f1e8-4753-8033-0f276bb0955b": "Storage Blob Data Owner",
	"974c5e8b-45b9-4653-ba55-5f855dd0fb88": "Storage Queue Data Contributor",
	"19e7f393-937e-4f77-808e-94535e297925": "Storage Queue Data Reader",
	"0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3": "Storage Table Data Contributor",
	"76199698-9eea-4c19-bc75-cec21354c6b6": "Storage Table Data Reader",
	"17d1049b-9a84-46fb-8f53-869881c3d3ab": "Storage Account Contributor",
	"81a9662b-bebf-436f-a333-f67b29880f12": "Storage Account Key Operator Service Role",
	"0c867c2a-1d8c-454a-a3db-ab2ea1bdc8bb": "Storage File Data SMB Share Contributor",
	"4633458b-17de-408a-b874-0445c86b69e6": "Key Vault Secrets User",
	"b86a8fe4-44ce-4948-aee5-eccb2c155cd7": "Key Vault Secrets Officer",
	"00482a5a-887f-4fb3-b363-3b7fe8e74483": "Key Vault Administrator",
	"12338af0-0e69-4776-bea7-57ae8d297424": "Key Vault Crypto User",
	"14b46e9e-c2b7-41b4-b07b-48a6ebf60603": "Key Vault Crypto Officer",
	"e147488a-f6f5-4113-8e2d-b22465e65bf6": "Key Vault Crypto Service Encryption User",
	"a4417e6f-fecd-4de8-b567-7b0420556985": "Key Vault Certificates Officer",
	"21090545-7ca7-4776-b22c-e363652d74d2": "Key Vault Reader",
	"f25e0fa2-a7c8-4377-a976-54943a77a395": "Key Vault Contributor",
	"7f951dda-4ed3-4680-a7ca-43fe172d538d": "AcrPull",
	"8311e382-0749-4cb8-b61a-304f252e45ec": "AcrPush",
	"4d97b98b-1d4f-4787-a291-c67834d212e7": "Network Contributor",
	"f1a07417-d97a-45cb-824c-7a7467783830": "Managed Identity Operator",
	"e40ec5ca-96e0-45a2-b4ff-59039f2c2b59": "Managed Identity Contributor",
	"43d0d8ad-25c7-4714-9337-8ba259a9fe05": "Monitoring Reader",
	"749f88d5-cbae-40b8-bcfc-e573ddc772fa": "Monitoring Contributor",
	"3913510d-42f4-4e42-8a64-420c390055eb": "Monitoring Metrics Publisher",
	"92aaf0da-9dab-42b6-94a3-d43ce8d16293": "Log Analytics Contributor",
	"73c42c96-874c-492b-b04d-ab87d138a893": "Log Analytics Reader",
	"b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b": "Azure Kubernetes Service RBAC Cluster Admin",
	"3498e952-d568-435e-9b2c-8d77e338d7f7": "Azure Kubernetes Service RBAC Admin",
	"7f6c6a51-bcf8-42ba-9220-52d62157d7db": "Azure Kubernetes Service RBAC Reader",
	"a7ffa36f-339b-4b5c-8bdf-e2c188b2c0eb": "Azure Kubernetes Service RBAC Writer",
	"4abbcc35-e782-43d8-92c5-2d3f1bd2253f": "Azure Kubernetes Service Cluster User Role",
	"0ab0b1a8-8aac-4efd-b8c2-3ee1fb270be8": "Azure Kubernetes Service Cluster Admin Role",
	"ed7f3fbd-7b88-4dd4-9017-9adb7ce333f8": "Azure Kubernetes Service Contributor Role",
	"090c5cfd-751d-490a-894a-3ce6f1109419": "Azure Service Bus Data Owner",
	"69a216fc-b8fb-44d8-bc22-1f3c2cd27a39": "Azure Service Bus Data Sender",
	"4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0": "Azure Service Bus Data Receiver",
	"f526a384-b230-433a-b45c-95f59c4a2dec": "Azure Event Hubs Data Owner",
	"2b629674-e913-4c01-ae53-ef4638d8f975": "Azure Event Hubs Data Sender",
	"a638d3c7-ab3a-418d-83e6-5f17a39d4fde": "Azure Event Hubs Data Receiver",
	"5e0bd9bd-7b93-4f28-af87-19fc36ad61bd": "Cognitive Services OpenAI User",
	"a001fd3d-188f-4b5d-821b-7da978bf7442": "Cognitive Services OpenAI Contributor",
	"a97b65f3-24c7-4388-baec-2e87135dc908": "Cognitive Services User",
	"25fbc0a9-bd7c-42a3-aa1a-3b75d497ee68": "Cognitive Services Contributor",
	"9980e02c-c2be-4d73-94e8-173b1dc7cf3c": "Virtual Machine Contributor",
	"1c0163c0-47e6-4577-8991-ea5c82e286e4": "Virtual Machine Administrator Login",
	"fb879df8-f326-4884-b1cf-06f3ad86be52": "Virtual Machine User Login",
	"de139f84-1756-47ae-9be6-808fbbe84772": "Website Contributor",
	"2cc479cb-7b4d-49a8-b449-8c00fd0f0a4b": "Web Plan Contributor",
	"5bd9cd88-fe45-4216-938b-f97437e15450": "DocumentDB Account Contributor",
	"fbdf93bf-df7d-467e-a4d2-9458aa1360c8": "Cosmos DB Account Reader Role",
	"8ebe5a00-799e-43f5-93ac-243d3dce84a7": "Search Index Data Contributor",
	"1407120a-92aa-4202-b7e9-c0e197c71c8f": "Search Index Data Reader",
	"7ca78c08-252a-4471-8644-bb5ff32d4ba0": "Search Service Contributor",
	"36243c78-bf99-498c-9df9-86d9f8d28608": "Resource Policy Contributor",
	"5e467623-bb1f-42f4-a55d-6e525e11384b": "Backup Contributor",
	"befefa01-2a29-4197-83a8-272ff33ce314": "DNS Zone Contributor",
	"b12aa53e-6015-4669-85d0-8515ebb3ae7f": "Private DNS Zone Contributor",
	"6d8ee4ec-f05a-4a1d-8b00-a9b17e38b437": "SQL Server Contributor",
	"9b7fa17d-e63e-47b0-bb0a-15c516ac86ec": "SQL DB Contributor",
	"056cd41c-7e88-42e1-933e-88ba6a50c9c3": "SQL Security Manager",
	"673868aa-7521-48a0-acc6-0f60742d39f5": "Data Factory Contributor",
	"7efff54f-a5b4-42b5-a1c5-5411624893ce": "Disk Snapshot Contributor",
	"3e5e47e6-65f7-47ef-90b5-e5dd4d455f24": "Disk Backup Reader",
	"d18ad5f3-1baf-4119-b49b-d944edb1f9d0": "MySQL Backup And Export Operator",
	"c088a766-074b-43ba-90d4-1fb21feae531": "PostgreSQL Flexible Server Long Term Retention Backup Role",
	"e5e2a7ff-d759-4cd2-bb51-3152d37e2eb1": "Storage Account Backup Contributor",
	"bcd981a7-7f74-457b-83e1-cceb9e632ffe": "Azure Digital Twins Data Owner",
	"3f88fce4-5892-4214-ae73-ba5294559913": "FHIR Data Writer",
	"45d50f46-0b78-4001-a660-4198cbe8cd05": "DevCenter Dev Box User",
}

// BuiltinRole names a built-in role from its role definition ID or bare
// GUID; ok is false for any other role (a custom one, or an expression).
func BuiltinRole(roleDefinitionID string) (name string, ok bool) {
	g := roleDefinitionID
	if i := strings.LastIndex(g, "/"); i >= 0 {
		g = g[i+1:]
	}
	name, ok = builtinRoles[strings.ToLower(g)]
	return name, ok
}

// BuiltinRoleIDs lists the built-in roles' GUIDs, sorted.
func BuiltinRoleIDs() []string {
	out := make([]string, 0, len(builtinRoles))
	for g := range builtinRoles {
		out = append(out, g)
	}
	sort.Strings(out)
	return out
}
