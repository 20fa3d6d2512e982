using System.Net;

namespace AspnetApi.Tests;

/// <summary>The wire around the JSON: Content-Length, no chunking, keep-alive headers, HEAD.</summary>
// Both API styles run these tests: the two classes at the end of this file.
public abstract class FramingTests(RunningApp app)
{
    public static TheoryData<string> Paths =>
        ["/healthz", "/rest/comment/1", "/rest/comments/100", "/rest/user/1/comment", "/rest/user/1/comments/50",
         "/rest/comment/abc", "/rest/comment/200001", "/nothing"];

    [Theory]
    [MemberData(nameof(Paths))]
    public async Task EveryResponse_HasContentLengthAndNoChunking(string path)
    {
        var reply = await Reply.Get(app.Http, path);
        Assert.Equal(System.Text.Encoding.UTF8.GetByteCount(reply.Body), reply.Raw.Content.Headers.ContentLength);
        Assert.Null(reply.Raw.Headers.TransferEncodingChunked);
        Assert.Equal("keep-alive", string.Join(",", reply.Raw.Headers.Connection));
        Assert.Equal("timeout=130", string.Join(",", reply.Raw.Headers.GetValues("Keep-Alive")));
    }

    [Fact]
    public async Task GraphQLResponses_HaveContentLength()
    {
        var reply = await Reply.GraphQL(app.Http, new { query = "{ commentsByLimit(limit: 100) { id body } }" });
        Assert.Equal(System.Text.Encoding.UTF8.GetByteCount(reply.Body), reply.Raw.Content.Headers.ContentLength);
        Assert.Null(reply.Raw.Headers.TransferEncodingChunked);
    }

    [Theory]
    [MemberData(nameof(Paths))]
    public async Task Head_AnswersWhatGetWouldWithoutABody(string path)
    {
        var get = await Reply.Get(app.Http, path);
        using var head = await app.Http.SendAsync(new HttpRequestMessage(HttpMethod.Head, path));
        Assert.Equal(get.Status, head.StatusCode);
        Assert.Equal(get.ContentType, head.Content.Headers.ContentType?.ToString());
        Assert.Equal(get.Raw.Content.Headers.ContentLength, head.Content.Headers.ContentLength);
        Assert.Empty(await head.Content.ReadAsByteArrayAsync());
        Assert.Equal(HeaderNames(get.Raw), HeaderNames(head));
    }

    [Fact]
    public async Task ClosingRequest_GetsNoKeepAliveHeader()
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, "/healthz");
        request.Headers.ConnectionClose = true;
        using var response = await app.Http.SendAsync(request);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.False(response.Headers.Contains("Keep-Alive"));
    }

    static string[] HeaderNames(HttpResponseMessage response) =>
        response.Headers.Concat(response.Content.Headers).Select(h => h.Key.ToLowerInvariant()).Order().ToArray();
}

[Collection(AppCollection.Name)]
public sealed class FramingTestsOnMinimalApis(RunningApp app) : FramingTests(app);

[Collection(ControllersAppCollection.Name)]
public sealed class FramingTestsOnControllers(RunningAppWithControllers app) : FramingTests(app);
