package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Notification Hubs: properties.name repeats the resource name on PUT and
// is not returned. Evidence:
// azure-cli-extensions:src/notification-hub/azext_notification_hub/tests/latest/recordings/test_notificationhubs.yaml#2 (namespace)
// and #6 (hub).
func notificationHubsPlugins(b *builder) {
	b.add("Microsoft.NotificationHubs/namespaces", &diff.Funcs{R: diff.Rules{WriteOnly: []schema.Path{"properties.name"}}})
	b.add("Microsoft.NotificationHubs/namespaces/notificationHubs", &diff.Funcs{R: diff.Rules{WriteOnly: []schema.Path{
		"properties.name", "properties.authorizationRules",
	}}})
}
