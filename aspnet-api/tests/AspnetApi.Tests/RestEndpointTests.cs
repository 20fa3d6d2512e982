using System.Net;
using System.Text.Json;

namespace AspnetApi.Tests;

/// <summary>Every REST endpoint with rows 1, 50, 100 and joins 0, 1, against the seeded data.</summary>
// Both API styles run these tests: the two classes at the end of this file.
public abstract class RestEndpointTests(RunningApp app)
{
    static readonly string[] CommentKeys = ["id", "threadId", "userId", "body", "dateMade", "dateLastUpdated"];
    static readonly string[] JoinKeys = [.. CommentKeys, "user"];
    static readonly string[] UserKeys = ["id", "name", "email", "phone"];

    [Theory]
    [InlineData(1)]
    [InlineData(777)]
    [InlineData(200000)]
    public async Task CommentById_ReturnsThatComment(int id)
    {
        var reply = await Reply.Get(app.Http, $"/rest/comment/{id}");

        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal(Reply.JsonType, reply.ContentType);
        AssertComment(reply.Json, CommentKeys);
        Assert.Equal(id, reply.Json.GetProperty("id").GetInt32());
    }

    [Theory]
    [InlineData(1)]
    [InlineData(50)]
    [InlineData(100)]
    [InlineData(1000)]
    public async Task CommentsByLimit_ReturnsTheFirstRowsInIdOrder(int limit)
    {
        var reply = await Reply.Get(app.Http, $"/rest/comments/{limit}");

        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal(Reply.JsonType, reply.ContentType);
        var ids = reply.Json.EnumerateArray().Select(c => AssertComment(c, CommentKeys).GetProperty("id").GetInt32());
        Assert.Equal(Enumerable.Range(1, limit), ids);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(500)]
    [InlineData(1000)]
    public async Task FirstCommentOfUser_IsTheLowestIdWithTheJoinedUser(int userId)
    {
        var reply = await Reply.Get(app.Http, $"/rest/user/{userId}/comment");

        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal(Reply.JsonType, reply.ContentType);
        var comment = AssertComment(reply.Json, JoinKeys);
        Assert.Equal(FirstCommentIdOf(userId), comment.GetProperty("id").GetInt32());
        AssertUser(comment, userId);
    }

    [Theory]
    [InlineData(2, 1)]
    [InlineData(3, 50)]
    [InlineData(4, 100)]
    [InlineData(5, 1000)]
    public async Task CommentsOfUser_AreThatUsersInIdOrderWithTheJoinedUser(int userId, int limit)
    {
        var reply = await Reply.Get(app.Http, $"/rest/user/{userId}/comments/{limit}");

        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal(Reply.JsonType, reply.ContentType);
        var comments = reply.Json.EnumerateArray().Select(c => AssertComment(c, JoinKeys)).ToList();
        // The seed gives every user exactly 200 comments, numbered consecutively.
        Assert.Equal(Enumerable.Range(FirstCommentIdOf(userId), Math.Min(limit, 200)),
            comments.Select(c => c.GetProperty("id").GetInt32()));
        Assert.All(comments, c => AssertUser(c, userId));
    }

    [Fact]
    public async Task Healthz_IsOkWhileTheDatabaseIsUp()
    {
        var reply = await Reply.Get(app.Http, "/healthz");

        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal(Reply.JsonType, reply.ContentType);
        Assert.Equal("""{"status":"ok"}""", reply.Body);
    }

    [Fact]
    public async Task Responses_CarryNoServerOrPoweredByHeaderAndNoETag()
    {
        var reply = await Reply.Get(app.Http, "/rest/comment/1");

        Assert.False(reply.Raw.Headers.Contains("Server"));
        Assert.False(reply.Raw.Headers.Contains("X-Powered-By"));
        Assert.Null(reply.Raw.Headers.ETag);
    }

    static int FirstCommentIdOf(int userId) => (userId - 1) * 200 + 1;

    static JsonElement AssertComment(JsonElement comment, string[] keys)
    {
        Assert.Equal(keys, comment.EnumerateObject().Select(p => p.Name));
        Assert.Equal(JsonValueKind.Number, comment.GetProperty("threadId").ValueKind);
        Assert.Matches(@"^\d{4}-\d{2}-\d{2}\z", comment.GetProperty("dateMade").GetString());
        Assert.Matches(@"^\d{4}-\d{2}-\d{2}\z", comment.GetProperty("dateLastUpdated").GetString());
        Assert.NotEmpty(comment.GetProperty("body").GetString()!);
        return comment;
    }

    static void AssertUser(JsonElement comment, int userId)
    {
        Assert.Equal(userId, comment.GetProperty("userId").GetInt32());
        var user = comment.GetProperty("user");
        Assert.Equal(UserKeys, user.EnumerateObject().Select(p => p.Name));
        Assert.Equal(userId, user.GetProperty("id").GetInt32());
        Assert.NotEmpty(user.GetProperty("name").GetString()!);
        Assert.Contains("@", user.GetProperty("email").GetString());
    }
}

[Collection(AppCollection.Name)]
public sealed class RestEndpointTestsOnMinimalApis(RunningApp app) : RestEndpointTests(app);

[Collection(ControllersAppCollection.Name)]
public sealed class RestEndpointTestsOnControllers(RunningAppWithControllers app) : RestEndpointTests(app);
