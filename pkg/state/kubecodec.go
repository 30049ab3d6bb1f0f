package state

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// How the Kubernetes backend keeps a record in a ConfigMap: scalar fields
// as annotations, the bodies as JSON annotations, gzip-compressed when
// large and moved to binaryData when larger still.

// MaxValueBytes bounds one stored value (a body, an intent) as JSON. ARM
// accepts request bodies of at most 4 MiB, so no real record comes near it;
// it bounds what a reader inflates (maxInflate), so a small compressed
// value cannot make every reader of the set allocate gigabytes.
const MaxValueBytes = 16 << 20

// maxInflate is what a reader decompresses at most: a little above the
// largest value a writer stores.
const maxInflate = MaxValueBytes + 1<<20

func encodeValue(v any, compressAbove int) (string, []byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", nil, err
	}
	if len(b) > MaxValueBytes {
		return "", nil, &TooLargeError{What: "JSON in one value", Size: len(b), Limit: MaxValueBytes}
	}
	if len(b) <= compressAbove {
		return string(b), nil, nil
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	enc := gzipPrefix + base64.StdEncoding.EncodeToString(buf.Bytes())
	if len(enc) <= annotationMax {
		return enc, nil, nil
	}
	return "", buf.Bytes(), nil
}

func decodeValue(s string, cm *corev1.ConfigMap, into any) error {
	var b []byte
	switch {
	case len(s) > len(binaryRefPrefix) && s[:len(binaryRefPrefix)] == binaryRefPrefix:
		z, ok := cm.BinaryData[s[len(binaryRefPrefix):]]
		if !ok {
			return fmt.Errorf("binaryData %q missing", s[len(binaryRefPrefix):])
		}
		var err error
		if b, err = inflate(z); err != nil {
			return err
		}
	case len(s) > len(gzipPrefix) && s[:len(gzipPrefix)] == gzipPrefix:
		z, err := base64.StdEncoding.DecodeString(s[len(gzipPrefix):])
		if err != nil {
			return err
		}
		if b, err = inflate(z); err != nil {
			return err
		}
	default:
		b = []byte(s)
	}
	return unmarshalNumbers(b, into)
}

// inflate decompresses z, refusing more than maxInflate bytes.
func inflate(z []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInflate+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxInflate {
		return nil, fmt.Errorf("it decompresses to more than %d MiB, beyond any record this tool writes (at most %d MiB)", maxInflate>>20, MaxValueBytes>>20)
	}
	return b, nil
}

// setValue stores v under annotation ann (or binaryData when too big);
// nil removes it.
func (s *kubeStore) setValue(cm *corev1.ConfigMap, ann string, v any, isNil bool) error {
	bin := ann[len("azure.kubectl.io/"):] + ".json.gz"
	delete(cm.Annotations, ann)
	delete(cm.BinaryData, bin)
	if isNil {
		return nil
	}
	enc, big, err := encodeValue(v, s.opts.CompressAbove)
	if err != nil {
		return err
	}
	if big != nil {
		if cm.BinaryData == nil {
			cm.BinaryData = map[string][]byte{}
		}
		cm.BinaryData[bin] = big
		enc = binaryRefPrefix + bin
	}
	cm.Annotations[ann] = enc
	return nil
}

func (s *kubeStore) recordFrom(cm *corev1.ConfigMap) (*Record, error) {
	a := cm.Annotations
	serialS, ok := a[AnnSerial]
	if !ok {
		return nil, ErrNotFound
	}
	r := &Record{ID: a[AnnID], Type: a[AnnType], APIVersion: a[AnnAPIVersion], Origin: a[AnnOrigin], Etag: a[AnnEtag], Set: s.set,
		Subscription: a[AnnSubscription]}
	r.fillSubscription()
	r.PreventDestroy = a[AnnPreventDestroy] == "true"
	r.HashedAs = a[AnnHashedAs]
	if v := a[AnnAccepted]; v != "" {
		_ = json.Unmarshal([]byte(v), &r.Accepted) // paths only: unreadable means none accepted
	}
	r.Serial, _ = strconv.ParseInt(serialS, 10, 64)
	r.Updated, _ = time.Parse(time.RFC3339Nano, a[AnnUpdated])
	for ann, into := range map[string]*map[string]any{AnnLastApplied: &r.LastApplied, AnnBaseline: &r.Baseline} {
		if v, ok := a[ann]; ok {
			if err := decodeValue(v, cm, into); err != nil {
				return nil, fmt.Errorf("kubernetes state %s: ConfigMap %s annotation %s is unreadable (%v); delete the ConfigMap and re-import the resource", s, cm.Name, ann, err)
			}
		}
	}
	return r, nil
}

func setOrDelete(a map[string]string, k, v string) {
	if v == "" {
		delete(a, k)
	} else {
		a[k] = v
	}
}
