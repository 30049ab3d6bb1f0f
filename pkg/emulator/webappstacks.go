package emulator

import (
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// webStack is one minor version of a language stack: its display text,
// the value a client sets, and the runtime string per OS ("" = none).
type webStack struct {
	lang, langText, major, majorText, minor, minorText, linux, windows string
}

// webStacks are the language stacks App Service lists (GET
// /providers/Microsoft.Web/webAppStacks; App Service REST "Provider - Get
// Web App Stacks"; the versions are Microsoft Learn "Language support
// policy for App Service" as of 2024). Java is left out: its stacks come
// with container settings the emulator does not model.
var webStacks = []webStack{
	{"dotnet", ".NET", "8", ".NET 8 (LTS)", "8", ".NET 8 (LTS)", "DOTNETCORE|8.0", "v8.0"},
	{"dotnet", ".NET", "6", ".NET 6 (LTS)", "6", ".NET 6 (LTS)", "DOTNETCORE|6.0", "v6.0"},
	{"node", "Node", "20", "Node 20 LTS", "20-lts", "Node 20 LTS", "NODE|20-lts", "~20"},
	{"node", "Node", "18", "Node 18 LTS", "18-lts", "Node 18 LTS", "NODE|18-lts", "~18"},
	{"python", "Python", "3", "Python 3", "3.12", "Python 3.12", "PYTHON|3.12", ""},
	{"python", "Python", "3", "Python 3", "3.11", "Python 3.11", "PYTHON|3.11", ""},
	{"php", "PHP", "8", "PHP 8", "8.2", "PHP 8.2", "PHP|8.2", ""},
}

// serveWebAppStacks answers GET /providers/Microsoft.Web/webAppStacks,
// with ?stackOsType=Linux|Windows keeping that OS's settings only.
func (s *Server) serveWebAppStacks(r *http.Request, p armid.Path) (reply, bool) {
	if r.Method != http.MethodGet || p.Subscription != "" || p.Kind != armid.PathCollection ||
		!strings.EqualFold(p.Provider, "Microsoft.Web") || len(p.Types) != 1 || !strings.EqualFold(p.Types[0], "webAppStacks") {
		return reply{}, false
	}
	os := strings.ToLower(r.URL.Query().Get("stackOsType"))
	var items []any
	byLang := map[string]map[string]any{}
	for _, st := range webStacks {
		settings := map[string]any{}
		if st.linux != "" && os != "windows" {
			settings["linuxRuntimeSettings"] = runtimeSettings(st.linux)
		}
		if st.windows != "" && os != "linux" {
			settings["windowsRuntimeSettings"] = runtimeSettings(st.windows)
		}
		if len(settings) == 0 {
			continue
		}
		lang := byLang[st.lang]
		if lang == nil {
			lang = map[string]any{"id": "/providers/Microsoft.Web/webAppStacks/" + st.lang, "name": st.lang, "type": "Microsoft.Web/webAppStacks",
				"properties": map[string]any{"displayText": st.langText, "value": st.lang, "preferredOs": preferredOS(st), "majorVersions": []any{}}}
			byLang[st.lang] = lang
			items = append(items, lang)
		}
		props := lang["properties"].(map[string]any)
		majors := props["majorVersions"].([]any)
		var major map[string]any
		for _, m := range majors {
			if m.(map[string]any)["value"] == st.major {
				major = m.(map[string]any)
			}
		}
		if major == nil {
			major = map[string]any{"displayText": st.majorText, "value": st.major, "minorVersions": []any{}}
			props["majorVersions"] = append(majors, major)
		}
		major["minorVersions"] = append(major["minorVersions"].([]any), map[string]any{
			"displayText": st.minorText, "value": st.minor, "stackSettings": settings})
	}
	return s.page(r, items), true
}

func preferredOS(st webStack) string {
	if st.windows != "" && st.lang == "dotnet" {
		return "windows"
	}
	return "linux"
}

func runtimeSettings(version string) map[string]any {
	return map[string]any{"runtimeVersion": version, "remoteDebuggingSupported": false,
		"appInsightsSettings": map[string]any{"isSupported": true}, "gitHubActionSettings": map[string]any{"isSupported": true}}
}
