package expr_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
)

func eval(t *testing.T, s string) (any, error) {
	t.Helper()
	n, err := expr.Parse(s)
	if err != nil {
		return nil, err
	}
	c := &expr.Ctx{Funcs: func(string) (expr.Func, bool) { return nil, false }}
	return c.Eval(n)
}

// TestFunctions checks the built-in functions against the examples of
// Microsoft Learn's "Template functions" pages (string, array, object,
// numeric, comparison, logical and lambda functions); each case is one
// documented example with its documented output.
func TestFunctions(t *testing.T) {
	tests := []struct{ expr, want string }{
		// String functions.
		{`[base64('one, two, three')]`, `"b25lLCB0d28sIHRocmVl"`},
		{`[base64ToString('b25lLCB0d28sIHRocmVl')]`, `"one, two, three"`},
		{`[base64ToJson('eyJvbmUiOiAiYSIsICJ0d28iOiAiYiJ9')]`, `{"one":"a","two":"b"}`},
		{`[concat('prefix', '-', 'suffix')]`, `"prefix-suffix"`},
		{`[concat(createArray('1-1', '1-2', '1-3'), createArray('2-1', '2-2', '2-3'))]`, `["1-1","1-2","1-3","2-1","2-2","2-3"]`},
		{`[contains('OneTwoThree', 'e')]`, `true`},
		{`[contains('OneTwoThree', 'z')]`, `false`},
		{`[contains(createObject('one', 'a', 'two', 'b'), 'two')]`, `true`},
		{`[contains(createArray('one', 'two', 'three'), 'four')]`, `false`},
		{`[dataUri('Hello')]`, `"data:text/plain;charset=utf8;base64,SGVsbG8="`},
		{`[dataUriToString('data:;base64,SGVsbG8sIFdvcmxkIQ==')]`, `"Hello, World!"`},
		{`[empty('')]`, `true`},
		{`[empty(createArray())]`, `true`},
		{`[endsWith('abcdef', 'ef')]`, `true`},
		{`[endsWith('abcdef', 'F')]`, `true`},
		{`[endsWith('abcdef', 'e')]`, `false`},
		{`[first('One Two Three')]`, `"O"`},
		{`[first(createArray('one', 'two', 'three'))]`, `"one"`},
		{`[format('{0}, {1}. Formatted number: {2:N0}', 'Hello', 'User', 8175133)]`, `"Hello, User. Formatted number: 8,175,133"`},
		{`[format('{0:D3}', 7)]`, `"007"`},
		{`[indexOf('test', 't')]`, `0`},
		{`[indexOf('abcdef', 'CD')]`, `2`},
		{`[indexOf('abcdef', 'z')]`, `-1`},
		{`[lastIndexOf('test', 't')]`, `3`},
		{`[lastIndexOf('abcdef', 'AB')]`, `0`},
		{`[last('One Two Three')]`, `"e"`},
		{`[length('One Two Three')]`, `13`},
		{`[length(createArray('one', 'two', 'three'))]`, `3`},
		{`[padLeft('123', 10, '0')]`, `"0000000123"`},
		{`[replace('123-123-1234', '-', '')]`, `"1231231234"`},
		{`[replace('123-123-1234', '1234', 'xxxx')]`, `"123-123-xxxx"`},
		{`[skip('one two three', 4)]`, `"two three"`},
		{`[skip(createArray('one', 'two', 'three'), 2)]`, `["three"]`},
		{`[split('one,two,three', ',')]`, `["one","two","three"]`},
		{`[split('one;two,three', createArray(',', ';'))]`, `["one","two","three"]`},
		{`[join(createArray('one', 'two', 'three'), ',')]`, `"one,two,three"`},
		{`[startsWith('abcdef', 'ab')]`, `true`},
		{`[startsWith('abcdef', 'A')]`, `true`},
		{`[startsWith('abcdef', 'e')]`, `false`},
		{`[string(createObject('valueA', 10, 'valueB', 'Example Text'))]`, `"{\"valueA\":10,\"valueB\":\"Example Text\"}"`},
		{`[string(createArray('a', 'b', 'c'))]`, `"[\"a\",\"b\",\"c\"]"`},
		{`[string(5)]`, `"5"`},
		{`[substring('one two three', 4, 3)]`, `"two"`},
		{`[take('One Two Three', 2)]`, `"On"`},
		{`[take(createArray('one', 'two', 'three'), 2)]`, `["one","two"]`},
		{`[toLower('One Two Three')]`, `"one two three"`},
		{`[toUpper('One Two Three')]`, `"ONE TWO THREE"`},
		{`[trim('    one two three   ')]`, `"one two three"`},
		{`[uniqueString('prod', 'billing', 'westus')]`, `"6qe2chn2p5azk"`},
		{`[uri('http://contoso.org/firstpath', 'myscript.sh')]`, `"http://contoso.org/myscript.sh"`},
		{`[uri('http://contoso.org/firstpath/', 'myscript.sh')]`, `"http://contoso.org/firstpath/myscript.sh"`},
		{`[uriComponent('http://contoso.com/resources/nested/azuredeploy.json')]`, `"http%3A%2F%2Fcontoso.com%2Fresources%2Fnested%2Fazuredeploy.json"`},
		{`[uriComponentToString('http%3A%2F%2Fcontoso.com%2Fresources%2Fnested%2Fazuredeploy.json')]`, `"http://contoso.com/resources/nested/azuredeploy.json"`},
		// Date functions (utcNow is the deployment's).
		{`[dateTimeAdd('2023-01-01 00:00:00Z', 'P1Y')]`, `"2024-01-01 00:00:00Z"`},
		{`[dateTimeAdd('2020-04-07 14:53:14Z', '-PT9H')]`, `"2020-04-07 05:53:14Z"`},
		{`[dateTimeAdd('2020-04-07 14:53:14Z', 'P1M2DT1H30M', 'yyyy-MM-ddTHH:mm:ss')]`, `"2020-05-09T16:23:14"`},
		{`[dateTimeAdd('2024-01-01 00:00:00Z', 'P1Y', 'o')]`, `"2024-12-31T00:00:00.0000000Z"`},
		{`[dateTimeAdd('2024-02-01 00:00:00Z', 'P1M')]`, `"2024-03-02 00:00:00Z"`},
		{`[dateTimeAdd('20200407T145314Z', 'P1W')]`, `"20200414T145314Z"`},
		{`[dateTimeToEpoch('2023-05-02T15:16:13Z')]`, `1683040573`},
		{`[dateTimeFromEpoch(1683040573)]`, `"2023-05-02T15:16:13Z"`},
		{`[dateTimeToEpoch(dateTimeAdd('2023-05-02T15:16:13Z', 'P1D'))]`, `1683126973`},
		// Array and object functions.
		{`[array('efgh')]`, `["efgh"]`},
		{`[createObject('intProp', 1, 'stringProp', 'abc', 'boolProp', true())]`, `{"boolProp":true,"intProp":1,"stringProp":"abc"}`},
		{`[intersection(createArray('one', 'two', 'three'), createArray('two', 'three'))]`, `["two","three"]`},
		{`[intersection(createObject('one', 'a', 'two', 'b', 'three', 'c'), createObject('one', 'a', 'two', 'z', 'three', 'c'))]`, `{"one":"a","three":"c"}`},
		{`[union(createArray('one', 'two', 'three'), createArray('three', 'four'))]`, `["one","two","three","four"]`},
		{`[union(createObject('one', 'a', 'two', 'b', 'three', 'c1'), createObject('three', 'c2', 'four', 'd', 'five', 'e'))]`, `{"five":"e","four":"d","one":"a","three":"c2","two":"b"}`},
		{`[union(createObject('nest', createObject('a', 1)), createObject('nest', createObject('b', 2)))]`, `{"nest":{"a":1,"b":2}}`},
		{`[items(createObject('item002', 'b', 'item001', 'a'))]`, `[{"key":"item001","value":"a"},{"key":"item002","value":"b"}]`},
		{`[range(1, 5)]`, `[1,2,3,4,5]`},
		{`[min(createArray(0, 3, 2, 5, 4))]`, `0`},
		{`[max(0, 3, 2, 5, 4)]`, `5`},
		{`[json('{"a": "b"}').a]`, `"b"`},
		{`[json('null')]`, `null`},
		{`[json('.25')]`, `0.25`},
		{`[objectKeys(createObject('a', 1, 'b', 2))]`, `["a","b"]`},
		{`[shallowMerge(createArray(createObject('one', 'a'), createObject('two', 'b')))]`, `{"one":"a","two":"b"}`},
		{`[tryGet(createObject('a', 1), 'b')]`, `null`},
		{`[flatten(createArray(createArray('one', 'two'), createArray('three')))]`, `["one","two","three"]`},
		{`[createObject('Key', 'v').KEY]`, `"v"`},
		{`[split('a.b', '.')[1]]`, `"b"`},
		// Lambda functions.
		{`[filter(createArray(1, 2, 3, 4), lambda('x', greater(lambdaVariables('x'), 2)))]`, `[3,4]`},
		{`[map(createArray(1, 2), lambda('x', mul(lambdaVariables('x'), 10)))]`, `[10,20]`},
		{`[reduce(createArray(1, 2, 3), 0, lambda('cur', 'next', add(lambdaVariables('cur'), lambdaVariables('next'))))]`, `6`},
		{`[sort(createArray(3, 1, 2), lambda('a', 'b', less(lambdaVariables('a'), lambdaVariables('b'))))]`, `[1,2,3]`},
		{`[toObject(createArray('a', 'b'), lambda('k', lambdaVariables('k')), lambda('k', toUpper(lambdaVariables('k'))))]`, `{"a":"A","b":"B"}`},
		// Numeric functions: integer division truncates.
		{`[add(5, 3)]`, `8`},
		{`[sub(7, 3)]`, `4`},
		{`[mul(5, 3)]`, `15`},
		{`[div(8, 3)]`, `2`},
		{`[div(-7, 2)]`, `-3`},
		{`[mod(7, 3)]`, `1`},
		{`[int('4')]`, `4`},
		{`[float('3.5')]`, `3.5`},
		// Comparison and logical functions.
		{`[equals(1, 1)]`, `true`},
		{`[equals(createArray('a', 'b'), createArray('a', 'b'))]`, `true`},
		{`[less('A', 'a')]`, `true`},
		{`[greater(10, 5)]`, `true`},
		{`[lessOrEquals(5, 5)]`, `true`},
		{`[greaterOrEquals('A', 'a')]`, `false`},
		{`[and(true(), false())]`, `false`},
		{`[or(false(), true())]`, `true`},
		{`[not(true())]`, `false`},
		{`[bool('true')]`, `true`},
		{`[bool(0)]`, `false`},
		{`[coalesce(null(), null(), 'default')]`, `"default"`},
		{`[if(equals('a', 'a'), 'yes', 'no')]`, `"yes"`},
		// if evaluates only the branch it takes.
		{`[if(true(), 'ok', json('not json'))]`, `"ok"`},
		// Case-insensitive function names, quotes, escapes.
		{`[CONCAT('It''s', ' ', ToLower('OK'))]`, `"It's ok"`},
		{`[environment().suffixes.storage]`, `"core.windows.net"`},
	}
	for _, tt := range tests {
		got, err := eval(t, tt.expr)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		b, _ := json.Marshal(got)
		if string(b) != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, b, tt.want)
		}
	}
}

// TestBadExpressions: each is refused with a message naming the problem.
func TestBadExpressions(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`[nosuch(1)]`, "unknown function nosuch()"},
		{`[concat('a']`, "missing ')'"},
		{`[concat('a]`, "unterminated string"},
		{`[div(1, 0)]`, "division by zero"},
		{`[createObject('a', 1).b]`, `no property "b"`},
		{`[createArray(1)[3]]`, "out of range"},
		{`[substring('abc', 2, 5)]`, "outside the string"},
		{`[add('x', 1)]`, "must be an integer"},
		{`[lambdaVariables('x')]`, "no such lambda variable"},
		{`[dateTimeAdd('2020-04-07', 'P')]`, "not an ISO 8601 duration"},
		{`[dateTimeToEpoch('yesterday')]`, "not an ISO 8601 date"},
	}
	for _, tt := range tests {
		_, err := eval(t, tt.expr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to say %q", tt.expr, err, tt.want)
		}
	}
}

// TestEscapes: "[[" is a literal bracket, and only "[...]" is an expression.
func TestEscapes(t *testing.T) {
	for s, want := range map[string]bool{"[concat('a')]": true, "[[not]": false, "plain": false, "[": false, "[x": false} {
		if got := expr.IsExpression(s); got != want {
			t.Errorf("IsExpression(%q) = %v", s, got)
		}
	}
	if got := expr.Unescape("[[literal]"); got != "[literal]" {
		t.Errorf("Unescape = %q", got)
	}
}

// FuzzParse: no input makes the parser or the evaluator panic or loop.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"[concat('a', 'b')]", "[parameters('x').y[0]]", "[if(true(), 1, 2)]", "[a.b(1)]", "[lambda('x', lambdaVariables('x'))]", "[json('{\"a\":[1]}').a[0]]", "[format('{0}', 1)]", "[range(0, 3)]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := expr.Parse(s)
		if err != nil {
			return
		}
		c := &expr.Ctx{Funcs: func(string) (expr.Func, bool) { return nil, false }}
		_, _ = c.Eval(n)
	})
}
