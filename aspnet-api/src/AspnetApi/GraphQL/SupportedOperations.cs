using GraphQL.Validation;
using GraphQLParser.AST;

namespace AspnetApi.GraphQL;

/// <summary>
/// The schema has no mutations or subscriptions. GraphQL.NET finds that out only once execution
/// has begun and answers `"data": null`; graphql-js refuses the request before execution, without
/// `data`. As a validation error it is a request error here too, with graphql-js's words, so the
/// status follows the transport's rule alike on both stacks.
/// </summary>
public sealed class SupportedOperations : ValidationRuleBase
{
    static readonly INodeVisitor Visitor = new MatchingNodeVisitor<GraphQLOperationDefinition>((operation, context) =>
    {
        var kind = operation.Operation switch
        {
            OperationType.Mutation when context.Schema.Mutation is null => "mutations",
            OperationType.Subscription when context.Schema.Subscription is null => "subscriptions",
            _ => null,
        };
        if (kind is not null)
            context.ReportError(new ValidationError(context.Document.Source, null,
                $"Schema is not configured for {kind}.", operation));
    });

    public override ValueTask<INodeVisitor?> GetPreNodeVisitorAsync(ValidationContext context) => new(Visitor);
}
