import { GraphQLError, Kind } from 'graphql';

// Abuse limits, the same numbers on the ASP.NET side. Depth: a root field is level 1, each nested
// selection set one more (fragments count where they are spread). Fields: every field selection,
// __typename included, after spreading fragments. The schema's deepest honest query is 3 levels
// and the benchmark's largest selects 11 fields; introspection chains (ofType { ofType … }) and
// alias floods are what these stop.
export const MAX_DEPTH = 5;
export const MAX_FIELDS = 200;

const ZERO = { depth: 0, fields: 0 };

export function queryLimits(context) {
  const fragments = new Map();

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
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const inner = selection.selectionSet ? selectionCost(selection.selectionSet, visiting) : ZERO;
        depth = Math.max(depth, 1 + inner.depth);
        fields += 1 + inner.fields;
      } else {
        const inner = selection.kind === Kind.INLINE_FRAGMENT
          ? selectionCost(selection.selectionSet, visiting)
          : fragmentCost(selection.name.value, visiting);
        depth = Math.max(depth, inner.depth);
        fields += inner.fields;
      }
    }
    return { depth, fields };
  }

  return {
    OperationDefinition(node) {
      const { depth, fields } = selectionCost(node.selectionSet, new Set());
      if (depth > MAX_DEPTH) {
        context.reportError(new GraphQLError(
          `query is nested ${depth} levels deep; the maximum is ${MAX_DEPTH}`, [node]));
      }
      if (fields > MAX_FIELDS) {
        context.reportError(new GraphQLError(
          `query selects ${fields} fields; the maximum is ${MAX_FIELDS}`, [node]));
      }
    },
  };
}
