using AspnetApi.Data;
using AspnetApi.Http;
using GraphQL;
using GraphQL.Types;

namespace AspnetApi.GraphQL;

/// <summary>
/// The four root fields. Arguments break the same rules as REST's route values, with the same
/// messages, as field errors: the field is null and no SQL runs.
/// </summary>
public sealed class QueryType : ObjectGraphType
{
    public QueryType(ForumDatabase db)
    {
        Name = "Query";
        Field<CommentType>("commentById")
            .Argument<NonNullGraphType<IdGraphType>>("id")
            .ResolveAsync(async ctx => await db.CommentById(Id(ctx)));
        Field<NonNullGraphType<ListGraphType<NonNullGraphType<CommentType>>>>("commentsByLimit")
            .Argument<NonNullGraphType<IntGraphType>>("limit")
            .ResolveAsync(async ctx => await db.CommentsByLimit(Limit(ctx)));
        Field<CommentType>("commentByUserId")
            .Argument<NonNullGraphType<IdGraphType>>("id")
            .ResolveAsync(async ctx => await db.FirstCommentOfUser(Id(ctx)));
        Field<NonNullGraphType<ListGraphType<NonNullGraphType<CommentType>>>>("commentsByUserId")
            .Argument<NonNullGraphType<IdGraphType>>("id")
            .Argument<NonNullGraphType<IntGraphType>>("limit")
            .ResolveAsync(async ctx =>
            {
                var userId = Id(ctx);
                return await db.CommentsOfUser(userId, Limit(ctx));
            });
    }

    /// <summary>ID arrives as a string or a number (12, "12", "abc"): the REST rule applies to its text.</summary>
    static int Id(IResolveFieldContext ctx) =>
        RouteValues.TryId(Convert.ToString(ctx.GetArgument<object>("id"), System.Globalization.CultureInfo.InvariantCulture)!, out var id)
            ? id
            : throw new ExecutionError(RouteValues.IdRule);

    /// <summary>Int is already a 32-bit integer here (larger values fail validation).</summary>
    static int Limit(IResolveFieldContext ctx) =>
        ctx.GetArgument<int>("limit") is var limit and >= 1 and <= RouteValues.MaxLimit
            ? limit
            : throw new ExecutionError(RouteValues.LimitRule);
}
