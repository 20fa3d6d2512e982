using System.Globalization;
using AspnetApi.Data;
using GraphQL.Types;
using Microsoft.Extensions.DependencyInjection;

namespace AspnetApi.GraphQL;

/// <summary>
/// type Comment { id: ID! threadId: Int! userId: Int! body: String! dateMade: String
/// dateLastUpdated: String user: User }
/// </summary>
public sealed class CommentType : ObjectGraphType<IComment>
{
    public CommentType()
    {
        Name = "Comment";
        Field<NonNullGraphType<IdGraphType>>("id").Resolve(ctx => ctx.Source.Id.ToString(CultureInfo.InvariantCulture));
        Field<NonNullGraphType<IntGraphType>>("threadId").Resolve(ctx => ctx.Source.ThreadId);
        Field<NonNullGraphType<IntGraphType>>("userId").Resolve(ctx => ctx.Source.UserId);
        Field<NonNullGraphType<StringGraphType>>("body").Resolve(ctx => ctx.Source.Body);
        Field<StringGraphType>("dateMade").Resolve(ctx => ctx.Source.DateMade);
        Field<StringGraphType>("dateLastUpdated").Resolve(ctx => ctx.Source.DateLastUpdated);
        // A join row carries its user already; any other comment's user joins the request's batch.
        Field<UserType>("user").Resolve(ctx => ctx.Source is CommentWithUser joined
            ? joined.User
            : ctx.RequestServices!.GetRequiredService<UserBatch>().Load(ctx.Source.UserId));
    }
}
