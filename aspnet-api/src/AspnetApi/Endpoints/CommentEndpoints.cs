using AspnetApi.Data;
using AspnetApi.Http;
using Microsoft.AspNetCore.Http.HttpResults;

namespace AspnetApi.Endpoints;

/// <summary>/rest/comment/{id} and /rest/comments/{limit}.</summary>
public static class CommentEndpoints
{
    public static void MapCommentEndpoints(this IEndpointRouteBuilder app)
    {
        var rest = app.MapGroup("/rest");
        rest.MapGetAndHead("/comment/{id}", ById);
        rest.MapGetAndHead("/comments/{limit}", ByLimit);
    }

    public static async Task<Results<JsonBody<Comment>, JsonBody<Problem>>> ById(string id, ForumDatabase db)
    {
        if (!RouteValues.TryId(id, out var commentId))
            return Problems.BadId();
        var comment = await db.CommentById(commentId);
        return comment is null ? Problems.NoComment(commentId) : JsonBody.Ok(comment);
    }

    public static async Task<Results<JsonBody<List<Comment>>, JsonBody<Problem>>> ByLimit(string limit, ForumDatabase db)
    {
        if (!RouteValues.TryLimit(limit, out var rows))
            return Problems.BadLimit();
        return JsonBody.Ok(await db.CommentsByLimit(rows));
    }
}
