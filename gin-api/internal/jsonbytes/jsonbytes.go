// Package jsonbytes writes JSON as the contract's bytes: compact, keys in struct order, strings
// escaped as JavaScript's JSON.stringify escapes them. encoding/json escapes more (<, >, & by
// default, U+2028 and U+2029 always) and writes \b and \f as \u0008 and \u000c in Go 1.19; those
// escapes are turned back into what JSON.stringify writes.
package jsonbytes

import (
	"bytes"
	"encoding/json"
)

// goOnlyEscapes maps each escape encoding/json writes where JSON.stringify would not to
// JSON.stringify's bytes.
var goOnlyEscapes = map[string]string{
	`\u003c`: "<",
	`\u003e`: ">",
	`\u0026`: "&",
	`\u2028`: "\u2028",
	`\u2029`: "\u2029",
	`\u0008`: `\b`,
	`\u000c`: `\f`,
}

// Marshal is v's JSON in the contract's bytes.
func Marshal(v any) ([]byte, error) {
	var out bytes.Buffer
	encoder := json.NewEncoder(&out)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(v); err != nil {
		return nil, err
	}
	return AsJavaScript(bytes.TrimSuffix(out.Bytes(), []byte("\n"))), nil
}

// AsJavaScript rewrites the escapes of encoding/json's output (json.Marshal's, or a library's
// that uses it) that JSON.stringify does not write. A backslash in the text itself is always
// written as `\\`, so escapes are found by reading backslash pairs from the left.
func AsJavaScript(encoded []byte) []byte {
	if !bytes.Contains(encoded, []byte(`\u`)) {
		return encoded
	}
	out := make([]byte, 0, len(encoded))
	for i := 0; i < len(encoded); i++ {
		if encoded[i] != '\\' || i+1 == len(encoded) {
			out = append(out, encoded[i])
			continue
		}
		if encoded[i+1] == 'u' && i+6 <= len(encoded) {
			if plain, ok := goOnlyEscapes[string(encoded[i:i+6])]; ok {
				out = append(out, plain...)
				i += 5
				continue
			}
		}
		out = append(out, encoded[i], encoded[i+1])
		i++
	}
	return out
}
