package cli_test

import (
	"io"
	"net/http"
	"strings"
)

type rawResp struct {
	code int
	body string
}

func httpGet(url string) (rawResp, error) {
	resp, err := http.Get(url)
	if err != nil {
		return rawResp{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return rawResp{code: resp.StatusCode, body: string(b)}, err
}

// httpWrite changes a resource in Azure as another tool would.
func httpWrite(method, url, body string) (rawResp, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return rawResp{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return rawResp{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return rawResp{code: resp.StatusCode, body: string(b)}, err
}

// httpPost calls an action on the emulator, as another tool would.
func httpPost(url string) (rawResp, error) { return httpWrite(http.MethodPost, url, "{}") }
