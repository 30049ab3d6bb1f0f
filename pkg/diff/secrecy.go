package diff

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// SecretRule is the one secret rule of the resource with ARM ID id: its
// type's secret paths, what the schema s marks secret (and knows to be
// plain: an enum or a boolean named like a credential), credential names
// and containers, and the body paths valueFrom fills (or the record holds
// hashed), and everything below them. The diff (Input.Secrets, which nil
// stands for with Input.SecretPaths), apply and the state record all ask
// it, so a value the record hashes is never one the plan shows.
func SecretRule(id string, s *schema.Type, valueFrom ...string) *secret.Rule {
	return secret.ForID(id, RuleFacts(s), valueFrom...)
}

// RuleFacts is the one reading of a schema that secret.Rule asks: the
// diff, the state record and import all judge by it, so a value the record
// hashes is never one the plan shows. Members are found as ARM finds them,
// ignoring case (a manifest's osProfile.CustomData is the schema's secret
// customData), and undeclared members of a map as its values. nil gives nil.
func RuleFacts(s *schema.Type) secret.Facts {
	if s == nil {
		return nil
	}
	return ruleFacts{s}
}

type ruleFacts struct{ t *schema.Type }

func (r ruleFacts) SecretAt(p bodypath.Path) bool {
	prop := r.prop(p)
	return prop != nil && prop.Secret
}

// Plain reports an enum or boolean property that is not marked secret:
// Grafana's apiKey is "Enabled" or "Disabled", never a credential.
func (r ruleFacts) Plain(p bodypath.Path) bool { return plainProp(r.prop(p)) }

// plainProp reports an enum or boolean property the schema does not mark
// secret: whatever its name says, its values are not a credential. The
// rule (through ruleFacts) and the comparers (namedSecret) both ask it.
func plainProp(prop *schema.Property) bool {
	return prop != nil && !prop.Secret && (len(prop.Enum) > 0 || prop.Type == schema.TypeBoolean)
}

func (r ruleFacts) prop(p bodypath.Path) *schema.Property {
	segs := make([]string, len(p))
	for i, s := range p {
		if s.Kind == bodypath.Member {
			segs[i] = s.Name
		} else {
			segs[i] = "[0]"
		}
	}
	_, prop := r.t.Resolve(segs)
	if prop == nil {
		// A type that declares the property but not every parent.
		prop = r.t.Prop(string(schema.PathOf(p, nil)))
	}
	return prop
}

// sensitive is the diff's one verdict on whether a planned change hides
// its values: the resource's rule declares one of vals secret at path
// (its type's paths, the schema, a credential name), path lies at or below
// a valueFrom path of the manifest or the record (resolved exactly
// against the bodies), or it lies inside a credential container and every
// value is a scalar (an object there is shown member by member).
func (p prepared) sensitive(path bodypath.Path, vals ...any) bool {
	scalars := true
	for _, v := range vals {
		if p.rule.Declared(path, v) {
			return true
		}
		scalars = scalars && isScalar(v)
	}
	return underAny(path, p.fromValue) || scalars && secret.UnderContainer(path)
}
