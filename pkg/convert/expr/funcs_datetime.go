package expr

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Date functions, as documented in "Date functions for ARM templates"
// (Microsoft Learn, azure-resource-manager/templates/template-functions-date).
// utcNow() is the deployment's (pkg/convert); these need only their
// arguments.

func init() {
	builtins["datetimeadd"] = fDateTimeAdd
	builtins["datetimetoepoch"] = fDateTimeToEpoch
	builtins["datetimefromepoch"] = fDateTimeFromEpoch
}

// dateLayouts are the ISO 8601 forms templates pass, with the .NET format
// that writes each back: dateTimeAdd keeps its base's form.
var dateLayouts = []struct{ layout, format string }{
	{"2006-01-02T15:04:05.9999999Z07:00", "o"},
	{"2006-01-02 15:04:05Z", "u"},
	{"20060102T150405Z", "yyyyMMddTHHmmssZ"},
	{"2006-01-02T15:04:05", "yyyy-MM-ddTHH:mm:ss"},
	{"2006-01-02", "yyyy-MM-dd"},
}

func parseDateTime(s string) (time.Time, string, error) {
	for _, l := range dateLayouts {
		if t, err := time.Parse(l.layout, s); err == nil {
			return t.UTC(), l.format, nil
		}
	}
	return time.Time{}, "", fmt.Errorf("%q is not an ISO 8601 date and time", s)
}

// FormatDateTime writes t with a .NET standard ("u", "o", "s", "d") or
// custom (yyyy, MM, dd, HH, mm, ss) format string.
func FormatDateTime(t time.Time, f string) string {
	switch f {
	case "u":
		return t.Format("2006-01-02 15:04:05Z")
	case "o", "O":
		return t.Format("2006-01-02T15:04:05.0000000Z")
	case "s":
		return t.Format("2006-01-02T15:04:05")
	case "d":
		return t.Format("1/2/2006")
	}
	r := strings.NewReplacer("yyyy", "2006", "MM", "01", "dd", "02", "HH", "15", "mm", "04", "ss", "05")
	return t.Format(r.Replace(f))
}

func fDateTimeAdd(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, 3); err != nil {
		return nil, err
	}
	base, err := strArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	dur, err := strArg(c, args, 1)
	if err != nil {
		return nil, err
	}
	t, format, err := parseDateTime(base)
	if err != nil {
		return nil, err
	}
	if len(args) == 3 {
		if format, err = strArg(c, args, 2); err != nil {
			return nil, err
		}
	}
	t, err = addDuration(t, dur)
	if err != nil {
		return nil, err
	}
	return FormatDateTime(t, format), nil
}

var durationRE = regexp.MustCompile(`^(-)?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// addDuration adds an ISO 8601 duration (P1Y2M3DT4H5M6S, -P1D). ARM
// takes a year as 365 days and a month as 30, leap years or not.
func addDuration(t time.Time, d string) (time.Time, error) {
	m := durationRE.FindStringSubmatch(d)
	if m == nil || d == "P" || d == "-P" || strings.HasSuffix(d, "T") {
		return t, fmt.Errorf("%q is not an ISO 8601 duration", d)
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	sign := 1
	if m[1] == "-" {
		sign = -1
	}
	t = t.AddDate(0, 0, sign*(365*n(2)+30*n(3)+7*n(4)+n(5)))
	secs, _ := strconv.ParseFloat(m[8], 64)
	span := time.Duration(n(6))*time.Hour + time.Duration(n(7))*time.Minute + time.Duration(secs*float64(time.Second))
	return t.Add(time.Duration(sign) * span), nil
}

func fDateTimeToEpoch(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	s, err := strArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	t, _, err := parseDateTime(s)
	if err != nil {
		return nil, err
	}
	return t.Unix(), nil
}

func fDateTimeFromEpoch(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	n, err := intArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	return time.Unix(n, 0).UTC().Format("2006-01-02T15:04:05Z"), nil
}
