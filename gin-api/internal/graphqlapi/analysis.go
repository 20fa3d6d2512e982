package graphqlapi

import (
	"fmt"
	"math"

	"forum/internal/config"
	"forum/internal/params"

	"github.com/vektah/gqlparser/ast"
	"github.com/vektah/gqlparser/parser"
)

// graph-gophers/graphql-go 1.5 keeps its parsed document internal, so the request is parsed once
// more with gqlparser (a port of graphql-js's parser) for what the contract needs from the
// document before execution: the three limits, the root fields that will run (the user batch
// waits for all of them) and where each root field starts (graphql-go 1.5 gives resolver errors a
// path but no location).

var singleCommentFields = map[string]bool{"commentById": true, "commentByUserId": true}
var commentListFields = map[string]bool{"commentsByLimit": true, "commentsByUserId": true}

// The fields whose comments come without their user: `user` under them goes through the batch.
var withoutUserFields = map[string]bool{"commentById": true, "commentsByLimit": true}

// analysis is what the transport needs to know of one request's operation.
type analysis struct {
	// violations are the broken limits, each located at the operation's first token.
	violations []located
	// rootFields are the response keys of the root fields our resolvers serve, as graphql-go
	// merges them (one resolver call per key), and where each starts.
	rootFields map[string]ast.Position
	// batchUsers says whether a field without a join selects `user`.
	batchUsers bool
	// uncoercible says that a root field's variable cannot be coerced to its argument's type:
	// graphql-go 1.5 then leaves that field out while it runs the others, so no root field may
	// wait for it.
	uncoercible bool
}

type located struct {
	message string
	at      ast.Position
}

type cost struct {
	depth, fields, comments int
}

// analyse reads the operation the request names. It finds nothing when gqlparser cannot parse
// the query or find that operation: graphql-go then refuses it in its own words before any
// resolver runs.
func analyse(query, operationName string, variables map[string]any, limits config.Limits) (result analysis) {
	document, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil {
		return analysis{}
	}
	operation := chosenOperation(document, operationName)
	if operation == nil {
		return analysis{}
	}
	walker := documentWalker{document: document, operation: operation, variables: variables, fragments: map[string]cost{}}
	measured := walker.selectionCost(operation.SelectionSet, map[string]bool{})
	at := *operation.Position
	if measured.depth > limits.MaxDepth {
		result.violations = append(result.violations, located{fmt.Sprintf("query is nested %d levels deep; the maximum is %d", measured.depth, limits.MaxDepth), at})
	}
	if measured.fields > limits.MaxFields {
		result.violations = append(result.violations, located{fmt.Sprintf("query selects %d fields; the maximum is %d", measured.fields, limits.MaxFields), at})
	}
	if measured.comments > limits.MaxComments {
		result.violations = append(result.violations, located{fmt.Sprintf("query asks for %d comments; the maximum is %d", measured.comments, limits.MaxComments), at})
	}
	result.rootFields = map[string]ast.Position{}
	walker.collectRoots(operation.SelectionSet, &result, map[string]bool{})
	return result
}

func chosenOperation(document *ast.QueryDocument, name string) *ast.OperationDefinition {
	if name == "" {
		if len(document.Operations) == 1 {
			return document.Operations[0]
		}
		return nil
	}
	return document.Operations.ForName(name)
}

type documentWalker struct {
	document  *ast.QueryDocument
	operation *ast.OperationDefinition
	variables map[string]any
	fragments map[string]cost
}

// A limit outside 1..1000 counts nothing: that field fails with the argument error (or its
// variable fails to coerce) and runs no SQL.
func countable(value float64) int {
	if value >= 1 && value <= params.MaxLimit && value == math.Trunc(value) {
		return int(value)
	}
	return 0
}

func literalInt(value *ast.Value) int {
	if value == nil || value.Kind != ast.IntValue {
		return 0
	}
	var n float64
	if _, err := fmt.Sscan(value.Raw, &n); err != nil {
		return 0
	}
	return countable(n)
}

func (w *documentWalker) limitOf(field *ast.Field) int {
	argument := field.Arguments.ForName("limit")
	if argument == nil {
		return 0
	}
	if argument.Value.Kind != ast.Variable {
		return literalInt(argument.Value)
	}
	name := argument.Value.Raw
	if value, given := w.variables[name]; given {
		number, isNumber := value.(float64)
		if !isNumber {
			return 0
		}
		return countable(number)
	}
	if definition := w.operation.VariableDefinitions.ForName(name); definition != nil {
		return literalInt(definition.DefaultValue)
	}
	return 0
}

func (w *documentWalker) commentsOf(field *ast.Field) int {
	switch {
	case singleCommentFields[field.Name]:
		return 1
	case commentListFields[field.Name]:
		return w.limitOf(field)
	}
	return 0
}

// Depth counts a root field as level 1; fields count every selection, __typename included, after
// spreading fragments; comments sum each field's share. Cycles and unknown fragments count as
// nothing: validation refuses them.
func (w *documentWalker) selectionCost(selections ast.SelectionSet, visiting map[string]bool) cost {
	var total cost
	for _, selection := range selections {
		var inner cost
		switch s := selection.(type) {
		case *ast.Field:
			inner = w.selectionCost(s.SelectionSet, visiting)
			inner.depth++
			inner.fields++
			inner.comments += w.commentsOf(s)
		case *ast.InlineFragment:
			inner = w.selectionCost(s.SelectionSet, visiting)
		case *ast.FragmentSpread:
			inner = w.fragmentCost(s.Name, visiting)
		}
		if inner.depth > total.depth {
			total.depth = inner.depth
		}
		total.fields += inner.fields
		total.comments += inner.comments
	}
	return total
}

func (w *documentWalker) fragmentCost(name string, visiting map[string]bool) cost {
	if known, ok := w.fragments[name]; ok {
		return known
	}
	definition := w.document.Fragments.ForName(name)
	if definition == nil || visiting[name] {
		return cost{}
	}
	visiting[name] = true
	measured := w.selectionCost(definition.SelectionSet, visiting)
	delete(visiting, name)
	w.fragments[name] = measured
	return measured
}

// collectRoots finds the root fields that will run, skipping what @skip or @include leave out,
// as graphql-go collects them.
func (w *documentWalker) collectRoots(selections ast.SelectionSet, result *analysis, visiting map[string]bool) {
	for _, selection := range selections {
		switch s := selection.(type) {
		case *ast.Field:
			if !w.included(s.Directives) || !(singleCommentFields[s.Name] || commentListFields[s.Name]) {
				continue
			}
			if !w.coercible(s.Arguments) {
				result.uncoercible = true
			}
			if _, seen := result.rootFields[s.Alias]; !seen {
				result.rootFields[s.Alias] = *s.Position
			}
			if withoutUserFields[s.Name] && w.selectsUser(s.SelectionSet, map[string]bool{}) {
				result.batchUsers = true
			}
		case *ast.InlineFragment:
			if w.included(s.Directives) {
				w.collectRoots(s.SelectionSet, result, visiting)
			}
		case *ast.FragmentSpread:
			definition := w.document.Fragments.ForName(s.Name)
			if definition != nil && !visiting[s.Name] && w.included(s.Directives) {
				visiting[s.Name] = true
				w.collectRoots(definition.SelectionSet, result, visiting)
				delete(visiting, s.Name)
			}
		}
	}
}

// coercible says whether graphql-go can coerce the variables given for a root field's arguments:
// an Int (limit) takes a whole number within 32 bits, an ID (id) a string or a whole number.
func (w *documentWalker) coercible(arguments ast.ArgumentList) bool {
	for _, argument := range arguments {
		if argument.Value.Kind != ast.Variable {
			continue
		}
		value, given := w.variables[argument.Value.Raw]
		if !given {
			continue
		}
		number, isNumber := value.(float64)
		whole := isNumber && number == math.Trunc(number)
		switch argument.Name {
		case "limit":
			if !whole || number < math.MinInt32 || number > math.MaxInt32 {
				return false
			}
		case "id":
			if _, isText := value.(string); !isText && !whole {
				return false
			}
		}
	}
	return true
}

func (w *documentWalker) selectsUser(selections ast.SelectionSet, visiting map[string]bool) bool {
	for _, selection := range selections {
		switch s := selection.(type) {
		case *ast.Field:
			if s.Name == "user" && w.included(s.Directives) {
				return true
			}
		case *ast.InlineFragment:
			if w.included(s.Directives) && w.selectsUser(s.SelectionSet, visiting) {
				return true
			}
		case *ast.FragmentSpread:
			definition := w.document.Fragments.ForName(s.Name)
			if definition != nil && !visiting[s.Name] && w.included(s.Directives) {
				visiting[s.Name] = true
				if w.selectsUser(definition.SelectionSet, visiting) {
					return true
				}
			}
		}
	}
	return false
}

func (w *documentWalker) included(directives ast.DirectiveList) bool {
	if skip := directives.ForName("skip"); skip != nil && w.condition(skip) {
		return false
	}
	if include := directives.ForName("include"); include != nil && !w.condition(include) {
		return false
	}
	return true
}

func (w *documentWalker) condition(directive *ast.Directive) bool {
	argument := directive.Arguments.ForName("if")
	if argument == nil {
		return false
	}
	if argument.Value.Kind == ast.Variable {
		if value, given := w.variables[argument.Value.Raw]; given {
			on, _ := value.(bool)
			return on
		}
		definition := w.operation.VariableDefinitions.ForName(argument.Value.Raw)
		return definition != nil && definition.DefaultValue != nil && definition.DefaultValue.Raw == "true"
	}
	return argument.Value.Raw == "true"
}
