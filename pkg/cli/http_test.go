package cli_test

import (
	"io"
	"net/http"
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
