package learn

import (
	"testing"
)

func rec(id, loc string, put, get map[string]any) Record {
	return Record{Source: id, ResourceType: "Microsoft.Test/widgets", ID: id, PutStatus: 201, PutBody: put, GetBody: get}
}

func TestLearnRules(t *testing.T) {
	const base = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg1/providers/Microsoft.Test/widgets/"
	var recs []Record
	for _, n := range []string{"alpha", "bravo", "charlie"} {
		id := base + n
		recs = append(recs, rec(id, "westus2",
			map[string]any{"location": "westus2", "properties": map[string]any{"tier": "basic", "size": "6", "secret": "x", "items": []any{map[string]any{"name": "a"}}}},
			map[string]any{"id": id, "name": n, "type": "Microsoft.Test/Widgets", "etag": `W/"1"`, "location": "West US 2",
				"properties": map[string]any{"tier": "Basic", "size": "6.0", "endpoint": "https://" + n + ".example.net", "items": []any{map[string]any{"name": "a", "state": "On"}}}}))
	}
	// One record where the server did not add the endpoint: 2 of 3 still pass the bar.
	delete(recs[2].GetBody["properties"].(map[string]any), "endpoint")

	p := Learn(recs)
	if p.Locations["westus2"] != "West US 2" {
		t.Errorf("locations = %v", p.Locations)
	}
	tp := p.Types["microsoft.test/widgets"]
	if tp == nil {
		t.Fatal("type not learned")
	}
	if tp.Type != "Microsoft.Test/Widgets" || tp.Etag != "weak" || tp.Records != 3 || tp.PutStatus != 201 {
		t.Errorf("envelope facts = %+v", tp)
	}
	if tp.Added["properties.endpoint"] != "https://{{name}}.example.net" {
		t.Errorf("added endpoint = %v", tp.Added["properties.endpoint"])
	}
	if tp.Added["properties.items[].state"] != "On" {
		t.Errorf("added item key = %v", tp.Added)
	}
	if tp.Values["properties.size"][`"6"`] != `"6.0"` || tp.Values["properties.tier"]["ci:basic"] != `"Basic"` {
		t.Errorf("values = %v", tp.Values)
	}
	if len(tp.Dropped) != 1 || tp.Dropped[0] != "properties.secret" {
		t.Errorf("dropped = %v", tp.Dropped)
	}
	if len(tp.LocationPaths) != 1 || tp.LocationPaths[0] != "location" {
		t.Errorf("location paths = %v", tp.LocationPaths)
	}
}

func TestTemplater(t *testing.T) {
	r := Record{ID: "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/myGroup/providers/A.B/c/myname", PutBody: map[string]any{"location": "westus"}}
	tp := newTemplater(r)
	for in, want := range map[string]string{
		r.ID + "/child":                        "{{id}}/child",
		"https://myname.westus.svc.net/x":      "https://{{name}}.{{location}}.svc.net/x",
		"2023-11-02T10:00:00.123Z":             "{{now}}",
		"9b2f4c1e-0d6a-4f51-8a47-1c2d3e4f5a6b": "{{guid}}",
		"00000000-0000-0000-0000-000000000000": "00000000-0000-0000-0000-000000000000",
		"westus":                               "{{location}}",
		"/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/MYGROUP/x": "/subscriptions/{{sub}}/resourceGroups/{{rg}}/x",
	} {
		if got := tp.str(in); got != want {
			t.Errorf("templater(%q) = %q, want %q", in, got, want)
		}
	}
}
