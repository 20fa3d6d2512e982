using System.Globalization;
using AspnetApi.Http;
using GraphQL;
using GraphQL.Validation;
using GraphQLParser;
using GraphQLParser.AST;

namespace AspnetApi.GraphQL;

/// <summary>
/// The abuse limits, the same numbers and texts as express-api's graphql/limits.js (contract/README.md,
/// "The GraphQL transport"). Depth: a root field is level 1, each nested selection set one more,
/// fragments counted where they are spread. Fields: every field selection, __typename included,
/// after spreading fragments. Comments: the rows a request may ask for in total, so that no request
/// costs more than /rest/comments/1000. All three reject the operation before any SQL runs.
/// </summary>
public sealed class QueryLimits(GraphQLLimitSettings settings) : ValidationRuleBase
{
    readonly record struct Cost(int Depth, int Fields, int Comments)
    {
        public static readonly Cost Zero = new(0, 0, 0);
    }

    public override ValueTask<INodeVisitor?> GetPreNodeVisitorAsync(ValidationContext context) =>
        new(new MatchingNodeVisitor<GraphQLOperationDefinition>((operation, ctx) => Check(operation, ctx)));

    void Check(GraphQLOperationDefinition operation, ValidationContext context)
    {
        var cost = new Measure(context, operation).Selections(operation.SelectionSet, []);
        if (cost.Depth > settings.MaxDepth)
            Report(context, operation, $"query is nested {cost.Depth} levels deep; the maximum is {settings.MaxDepth}");
        if (cost.Fields > settings.MaxFields)
            Report(context, operation, $"query selects {cost.Fields} fields; the maximum is {settings.MaxFields}");
        if (cost.Comments > settings.MaxComments)
            Report(context, operation, $"query asks for {cost.Comments} comments; the maximum is {settings.MaxComments}");
    }

    static void Report(ValidationContext context, GraphQLOperationDefinition operation, string message) =>
        context.ReportError(new ValidationError(context.Document.Source, null, message, operation));

    sealed class Measure(ValidationContext context, GraphQLOperationDefinition operation)
    {
        readonly Dictionary<string, Cost> fragments = [];

        public Cost Selections(GraphQLSelectionSet set, HashSet<string> visiting)
        {
            int depth = 0, fields = 0, comments = 0;
            foreach (var selection in set.Selections)
            {
                var inner = selection switch
                {
                    GraphQLField field => Field(field, visiting),
                    GraphQLInlineFragment inline => Selections(inline.SelectionSet, visiting),
                    GraphQLFragmentSpread spread => Fragment(spread.FragmentName.Name.StringValue, visiting),
                    _ => Cost.Zero,
                };
                depth = Math.Max(depth, inner.Depth);
                fields += inner.Fields;
                comments += inner.Comments;
            }
            return new Cost(depth, fields, comments);
        }

        Cost Field(GraphQLField field, HashSet<string> visiting)
        {
            var inner = field.SelectionSet is null ? Cost.Zero : Selections(field.SelectionSet, visiting);
            return new Cost(1 + inner.Depth, 1 + inner.Fields, inner.Comments + Comments(field));
        }

        // Cycles and unknown fragments count as nothing: the specified rules already reject them.
        Cost Fragment(string name, HashSet<string> visiting)
        {
            if (fragments.TryGetValue(name, out var known))
                return known;
            var definition = context.Document.FindFragmentDefinition(name);
            if (definition is null || !visiting.Add(name))
                return Cost.Zero;
            var cost = Selections(definition.SelectionSet, visiting);
            visiting.Remove(name);
            fragments[name] = cost;
            return cost;
        }

        int Comments(GraphQLField field) => field.Name.StringValue switch
        {
            "commentById" or "commentByUserId" => 1,
            "commentsByLimit" or "commentsByUserId" => LimitOf(field),
            _ => 0,
        };

        /// <summary>A limit from 1 to the maximum counts its value; anything else fails later, without SQL.</summary>
        int LimitOf(GraphQLField field)
        {
            var value = field.Arguments?.Items.FirstOrDefault(a => a.Name.StringValue == "limit")?.Value;
            var number = value switch
            {
                GraphQLIntValue literal => Parse(literal.Value.ToString()),
                GraphQLVariable variable => VariableValue(variable.Name.StringValue),
                _ => null,
            };
            return number is >= 1 and <= RouteValues.MaxLimit ? (int)number : 0;
        }

        decimal? VariableValue(string name)
        {
            if (context.Variables is { } variables && variables.TryGetValue(name, out var value))
                return value switch
                {
                    int i => i,
                    long l => l,
                    decimal d when d == decimal.Truncate(d) => d,
                    double f when f == Math.Truncate(f) && Math.Abs(f) < 1e15 => (decimal)f,
                    _ => null,
                };
            var declared = operation.Variables?.Items.FirstOrDefault(v => v.Variable.Name.StringValue == name);
            return declared?.DefaultValue is GraphQLIntValue fallback ? Parse(fallback.Value.ToString()) : null;
        }

        static decimal? Parse(string text) =>
            decimal.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var n) ? n : null;
    }
}

/// <summary>GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_FIELDS, GRAPHQL_MAX_COMMENTS: read once at start-up.</summary>
public sealed record GraphQLLimitSettings(int MaxDepth, int MaxFields, int MaxComments)
{
    public static GraphQLLimitSettings FromEnvironment() => new(
        Positive("GRAPHQL_MAX_DEPTH", 5), Positive("GRAPHQL_MAX_FIELDS", 200), Positive("GRAPHQL_MAX_COMMENTS", 1000));

    static int Positive(string name, int fallback)
    {
        var text = Environment.GetEnvironmentVariable(name);
        if (string.IsNullOrEmpty(text))
            return fallback;
        return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var value) && value > 0
            ? value
            : throw new BadSettingException($"{name} must be a positive integer, not '{text}'.");
    }
}
