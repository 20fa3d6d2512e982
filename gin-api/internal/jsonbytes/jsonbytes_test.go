package jsonbytes

import "testing"

func TestWritesStringsAsJSONStringifyDoes(t *testing.T) {
	cases := map[string]string{
		"<a href='x'>&+</a>":        `"<a href='x'>&+</a>"`,
		"line\u2028para\u2029":      "\"line\u2028para\u2029\"",
		"\b\f\n\r\t\x01":            `"\b\f\n\r\t\u0001"`,
		`a literal \u003c stays`:    `"a literal \\u003c stays"`,
		"quote \" and backslash \\": `"quote \" and backslash \\"`,
		"ünïcödé 🙂":                 `"ünïcödé 🙂"`,
	}
	for text, expected := range cases {
		got, err := Marshal(text)
		if err != nil || string(got) != expected {
			t.Errorf("%q: got %s, expected %s (%v)", text, got, expected, err)
		}
	}
}
