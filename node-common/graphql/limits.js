import { GraphQLError, Kind } from 'graphql';
import { MAX_LIMIT } from '../params.js';

// The abuse limits of contract/README.md ("Limits"), the same rule and texts on the ASP.NET side.
// Depth: a root field is level 1, each nested selection set one more (fragments count where they
// are spread). Fields: every field selection, __typename included, after spreading fragments.
// Comments: what the operation may fetch in total, so that no request costs more than
// /rest/comments/1000. The schema's deepest honest query is 3 levels and the benchmark's largest
// selects 11 fields and 100 comments; introspection chains (ofType { ofType … }), alias floods and
// aliased large lists are what these stop.

const SINGLE_COMMENT_FIELDS = new Set(['commentById', 'commentByUserId']);
const COMMENT_LIST_FIELDS = new Set(['commentsByLimit', 'commentsByUserId']);
const ZERO = { depth: 0, fields: 0, comments: 0 };

// A limit outside 1..MAX_LIMIT counts nothing: that field fails with the argument error (or its
// variable fails to coerce) and runs no SQL.
function countable(value) {
  return Number.isInteger(value) && value >= 1 && value <= MAX_LIMIT ? value : 0;
}

function intLiteral(node) {
  return node?.kind === Kind.INT ? countable(Number(node.value)) : 0;
}

// The validation rule for one request: the comment count depends on its variables, which
// graphql-js does not show to validation rules, hence a rule built per request.
export function queryLimits({ maxDepth, maxFields, maxComments }, variables) {
  return (context) => {
    const verdicts = [];

    function measure(operation) {
      // Per operation: a fragment's comments depend on the operation's variable defaults.
      const fragments = new Map();

      function limitOf(field) {
        const value = field.arguments?.find((argument) => argument.name.value === 'limit')?.value;
        if (value?.kind !== Kind.VARIABLE) return intLiteral(value);
        const name = value.name.value;
        if (variables != null && Object.hasOwn(variables, name)) return countable(variables[name]);
        const declared = operation.variableDefinitions
          ?.find((definition) => definition.variable.name.value === name);
        return intLiteral(declared?.defaultValue);
      }

      function commentsOf(field) {
        if (SINGLE_COMMENT_FIELDS.has(field.name.value)) return 1;
        if (COMMENT_LIST_FIELDS.has(field.name.value)) return limitOf(field);
        return 0;
      }

      // Cycles and unknown fragments count as nothing: the specified rules already reject them.
      function fragmentCost(name, visiting) {
        if (fragments.has(name)) return fragments.get(name);
        const definition = context.getFragment(name);
        if (!definition || visiting.has(name)) return ZERO;
        visiting.add(name);
        const cost = selectionCost(definition.selectionSet, visiting);
        visiting.delete(name);
        fragments.set(name, cost);
        return cost;
      }

      function selectionCost(selectionSet, visiting) {
        let depth = 0;
        let fields = 0;
        let comments = 0;
        for (const selection of selectionSet.selections) {
          if (selection.kind === Kind.FIELD) {
            const inner = selection.selectionSet
              ? selectionCost(selection.selectionSet, visiting) : ZERO;
            depth = Math.max(depth, 1 + inner.depth);
            fields += 1 + inner.fields;
            comments += commentsOf(selection) + inner.comments;
          } else {
            const inner = selection.kind === Kind.INLINE_FRAGMENT
              ? selectionCost(selection.selectionSet, visiting)
              : fragmentCost(selection.name.value, visiting);
            depth = Math.max(depth, inner.depth);
            fields += inner.fields;
            comments += inner.comments;
          }
        }
        return { depth, fields, comments };
      }

      return selectionCost(operation.selectionSet, new Set());
    }

    // Each broken limit is one error located at the operation's first token.
    function check(operation) {
      const { depth, fields, comments } = measure(operation);
      if (depth > maxDepth) {
        verdicts.push(new GraphQLError(
          `query is nested ${depth} levels deep; the maximum is ${maxDepth}`, [operation]));
      }
      if (fields > maxFields) {
        verdicts.push(new GraphQLError(
          `query selects ${fields} fields; the maximum is ${maxFields}`, [operation]));
      }
      if (comments > maxComments) {
        verdicts.push(new GraphQLError(
          `query asks for ${comments} comments; the maximum is ${maxComments}`, [operation]));
      }
    }

    return {
      OperationDefinition: check,
      // Reported once the whole document is visited, so that they follow the specified rules' errors.
      Document: {
        leave() {
          verdicts.forEach((error) => context.reportError(error));
        },
      },
    };
  };
}
