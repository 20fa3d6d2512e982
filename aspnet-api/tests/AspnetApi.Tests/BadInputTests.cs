using System.Net;

namespace AspnetApi.Tests;

/// <summary>Every kind of bad input the contract names: a problem body, never a 500.</summary>
// Both API styles run these tests: the two classes at the end of this file.
public abstract class BadInputTests(RunningApp app)
{
    static readonly string BadId = Reply.ProblemJson(400, "Bad Request", "id must be an integer from 1 to 2147483647");
    static readonly string BadLimit = Reply.ProblemJson(400, "Bad Request", "limit must be an integer from 1 to 1000");

    public static TheoryData<string> NotAnId =>
        ["abc", "0", "-1", "%2B1", "007", "1.0", "1e3", "0x1F", "%201", "1%20", "1%0A", "2147483648", "99999999999999999999"];

    public static TheoryData<string> NotALimit => ["abc", "0", "-5", "1001", "050", "1.5", "%2B10", "2147483648"];

    [Theory]
    [MemberData(nameof(NotAnId))]
    public async Task CommentById_RejectsId(string id) =>
        await AssertProblem($"/rest/comment/{id}", HttpStatusCode.BadRequest, BadId);

    [Theory]
    [MemberData(nameof(NotAnId))]
    public async Task FirstCommentOfUser_RejectsId(string id) =>
        await AssertProblem($"/rest/user/{id}/comment", HttpStatusCode.BadRequest, BadId);

    [Theory]
    [MemberData(nameof(NotAnId))]
    public async Task CommentsOfUser_RejectsId(string id) =>
        await AssertProblem($"/rest/user/{id}/comments/10", HttpStatusCode.BadRequest, BadId);

    [Theory]
    [MemberData(nameof(NotALimit))]
    public async Task CommentsByLimit_RejectsLimit(string limit) =>
        await AssertProblem($"/rest/comments/{limit}", HttpStatusCode.BadRequest, BadLimit);

    [Theory]
    [MemberData(nameof(NotALimit))]
    public async Task CommentsOfUser_RejectsLimit(string limit) =>
        await AssertProblem($"/rest/user/1/comments/{limit}", HttpStatusCode.BadRequest, BadLimit);

    [Fact]
    public async Task LargestId_IsValidButUnknown() =>
        await AssertProblem("/rest/comment/2147483647", HttpStatusCode.NotFound,
            Reply.ProblemJson(404, "Not Found", "comment 2147483647 does not exist"));

    [Theory]
    [InlineData("/rest/user/2147483647/comment")]
    [InlineData("/rest/user/2147483647/comments/5")]
    [InlineData("/rest/user/1001/comments/1000")]
    public async Task UserWithoutComments_IsNotFound(string path) =>
        await AssertProblem(path, HttpStatusCode.NotFound,
            Reply.ProblemJson(404, "Not Found", $"user {path.Split('/')[3]} has no comments"));

    [Theory]
    [InlineData("/")]
    [InlineData("/rest")]
    [InlineData("/rest/comment")]
    [InlineData("/rest/comment/1/extra")]
    [InlineData("/rest/comments")]
    [InlineData("/favicon.ico")]
    public async Task UnknownPath_IsNotFound(string path) =>
        await AssertProblem(path, HttpStatusCode.NotFound, Reply.ProblemJson(404, "Not Found", "no such endpoint"));

    [Theory]
    [InlineData("POST", "/rest/comment/1")]
    [InlineData("PUT", "/rest/comments/10")]
    [InlineData("DELETE", "/rest/user/1/comment")]
    [InlineData("PATCH", "/rest/user/1/comments/10")]
    [InlineData("POST", "/healthz")]
    public async Task WrongMethod_IsNotAllowedWithAllowHeader(string method, string path)
    {
        using var request = new HttpRequestMessage(new HttpMethod(method), path) { Content = new StringContent("{") };
        var reply = await Reply.Read(await app.Http.SendAsync(request));

        AssertIs(reply, HttpStatusCode.MethodNotAllowed, Reply.ProblemJson(405, "Method Not Allowed", "method not allowed"));
        Assert.Equal(["GET"], reply.Raw.Content.Headers.Allow);
    }

    async Task AssertProblem(string path, HttpStatusCode status, string body) =>
        AssertIs(await Reply.Get(app.Http, path), status, body);

    static void AssertIs(Reply reply, HttpStatusCode status, string body)
    {
        Assert.Equal(status, reply.Status);
        Assert.Equal(Reply.ProblemType, reply.ContentType);
        Assert.Equal(body, reply.Body);
    }
}

[Collection(AppCollection.Name)]
public sealed class BadInputTestsOnMinimalApis(RunningApp app) : BadInputTests(app);

[Collection(ControllersAppCollection.Name)]
public sealed class BadInputTestsOnControllers(RunningAppWithControllers app) : BadInputTests(app);
