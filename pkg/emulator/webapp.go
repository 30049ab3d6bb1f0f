package emulator

import (
	"encoding/xml"
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// slotConfigNames is config/slotConfigNames, which every site has from
// its creation: the names of the settings that stay with a slot on a swap,
// none until a client sets them (App Service REST "Web Apps - List Slot
// Configuration Names": appSettingNames, connectionStringNames,
// azureStorageConfigNames). `az webapp config appsettings list` reads it
// for every site.
func slotConfigNames(p *resource) map[string]any {
	return map[string]any{"location": p.Body["location"], "properties": map[string]any{
		"appSettingNames": nil, "connectionStringNames": nil, "azureStorageConfigNames": nil,
	}}
}

// publishProfile is one <publishProfile> of POST {site}/publishxml (App
// Service REST "Web Apps - List Publishing Profile Xml With Secrets": the
// answer is the XML document the portal's "Download publish profile"
// gives, application/xml, one profile per publish method).
type publishProfile struct {
	XMLName        xml.Name `xml:"publishProfile"`
	ProfileName    string   `xml:"profileName,attr"`
	PublishMethod  string   `xml:"publishMethod,attr"`
	PublishURL     string   `xml:"publishUrl,attr"`
	MSDeploySite   string   `xml:"msdeploySite,attr,omitempty"`
	FTPPassiveMode string   `xml:"ftpPassiveMode,attr,omitempty"`
	UserName       string   `xml:"userName,attr"`
	UserPWD        string   `xml:"userPWD,attr"`
	DestinationURL string   `xml:"destinationAppUrl,attr"`
	SQLServerDB    string   `xml:"SQLServerDBConnectionString,attr"`
	MySQLDB        string   `xml:"mySQLDBConnectionString,attr"`
	HostingForum   string   `xml:"hostingProviderForumLink,attr"`
	ControlPanel   string   `xml:"controlPanelLink,attr"`
	WebSystem      string   `xml:"webSystem,attr"`
	Databases      struct{} `xml:"databases"`
}

// publishXML is the publish profile document of site res: Web Deploy, FTP
// and Zip Deploy, with the site's deployment credentials ($name and a
// password derived from its ID, as every emulator secret is).
func publishXML(res *resource) []byte {
	p, _ := armid.ParsePath(res.ID)
	site := p.Names[0]
	host := strings.ToLower(site)
	if len(p.Names) == 2 { // a slot
		site = p.Names[0] + "__" + p.Names[1]
		host = strings.ToLower(p.Names[0] + "-" + p.Names[1])
	}
	user, pwd := "$"+site, derivedKey(res.ID, "publishingPassword", 45)
	base := publishProfile{UserName: user, UserPWD: pwd, DestinationURL: "http://" + host + ".azurewebsites.net",
		ControlPanel: "https://portal.azure.com", WebSystem: "WebSites"}
	web, ftp, zip := base, base, base
	web.ProfileName, web.PublishMethod, web.PublishURL, web.MSDeploySite = site+" - Web Deploy", "MSDeploy", host+".scm.azurewebsites.net:443", site
	ftp.ProfileName, ftp.PublishMethod, ftp.PublishURL, ftp.FTPPassiveMode = site+" - FTP", "FTP", "ftp://waws-prod-emu-001.ftp.azurewebsites.windows.net/site/wwwroot", "True"
	zip.ProfileName, zip.PublishMethod, zip.PublishURL = site+" - Zip Deploy", "ZipDeploy", host+".scm.azurewebsites.net:443"
	out, _ := xml.Marshal(struct {
		XMLName  xml.Name `xml:"publishData"`
		Profiles []publishProfile
	}{Profiles: []publishProfile{web, ftp, zip}})
	return out
}

// servePublishXML answers POST {site|slot}/publishxml. Caller holds s.mu.
func (s *Server) servePublishXML(r *http.Request, p armid.Path) (reply, bool) {
	if r.Method != http.MethodPost || p.Kind != armid.PathCollection || !strings.EqualFold(p.Provider, "Microsoft.Web") || len(p.Types) < 2 ||
		!strings.EqualFold(p.Types[len(p.Types)-1], "publishxml") {
		return reply{}, false
	}
	site := s.store.get(p.ParentID())
	if site == nil || !siteChildren[strings.ToLower(site.Type)] {
		return reply{}, false
	}
	return reply{status: http.StatusOK, raw: publishXML(site), contentType: "application/xml"}, true
}
