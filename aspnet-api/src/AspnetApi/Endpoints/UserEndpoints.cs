using AspnetApi.Data;
using AspnetApi.Http;
using Microsoft.AspNetCore.Http.HttpResults;

namespace AspnetApi.Endpoints;

/// <summary>/rest/user/{id}/comment and /rest/user/{id}/comments/{limit}: the join endpoints.</summary>
public static class UserEndpoints
{
    public static void MapUserEndpoints(this IEndpointRouteBuilder app)
    {
        var user = app.MapGroup("/rest/user/{id}");
        user.MapGetAndHead("/comment", FirstComment);
        user.MapGetAndHead("/comments/{limit}", Comments);
    }

    public static async Task<Results<JsonBody<CommentWithUser>, JsonBody<Problem>>> FirstComment(string id, ForumDatabase db)
    {
        if (!RouteValues.TryId(id, out var userId))
            return Problems.BadId();
        var comment = await db.FirstCommentOfUser(userId);
        return comment is null ? Problems.NoUserComments(userId) : JsonBody.Ok(comment);
    }

    public static async Task<Results<JsonBody<List<CommentWithUser>>, JsonBody<Problem>>> Comments(
        string id, string limit, ForumDatabase db)
    {
        if (!RouteValues.TryId(id, out var userId))
            return Problems.BadId();
        if (!RouteValues.TryLimit(limit, out var rows))
            return Problems.BadLimit();
        var comments = await db.CommentsOfUser(userId, rows);
        return comments.Count == 0 ? Problems.NoUserComments(userId) : JsonBody.Ok(comments);
    }
}
