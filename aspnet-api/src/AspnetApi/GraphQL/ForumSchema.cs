using GraphQL.Types;

namespace AspnetApi.GraphQL;

/// <summary>schema { query: Query }: contract/schema.graphql, built once at start-up.</summary>
public sealed class ForumSchema : Schema
{
    public ForumSchema(IServiceProvider services, QueryType query) : base(services)
    {
        Query = query;
    }
}
