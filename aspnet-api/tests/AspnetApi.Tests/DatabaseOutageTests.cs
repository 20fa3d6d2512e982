using System.Diagnostics;
using System.Net;

namespace AspnetApi.Tests;

/// <summary>A fact that needs the testbed's own database server, because it stops and starts it.</summary>
public sealed class ManagedDatabaseFactAttribute : FactAttribute
{
    public ManagedDatabaseFactAttribute()
    {
        if (Environment.GetEnvironmentVariable("TESTBED_DB_MANAGED") == "0")
            Skip = "the database is external (DB_HOST): this suite does not stop other people's servers";
    }
}

/// <summary>
/// The database goes away under the running app: 503 problems, then normal answers once it is
/// back, with no restart of the app. The window is kept to a few requests: others share the server.
/// </summary>
[Collection(AppCollection.Name)]
public sealed class DatabaseOutageTests(RunningApp app)
{
    static readonly string Unreachable =
        Reply.ProblemJson(503, "Service Unavailable", "the database is unreachable");

    [ManagedDatabaseFact]
    public async Task StoppedDatabase_Gives503ThenRecoversByItself()
    {
        // Fill the pool first, so that recovery has stale pooled connections to get past.
        await Task.WhenAll(Enumerable.Range(1, 20).Select(i => app.Http.GetAsync($"/rest/comments/{i}")));
        var during = new List<Reply>();
        Testbed("db", "stop");
        try
        {
            foreach (var path in new[] { "/healthz", "/rest/comment/1", "/rest/comments/50", "/rest/user/1/comment", "/rest/user/1/comments/5" })
                during.Add(await Reply.Get(app.Http, path));
            during.Add(await Reply.GraphQL(app.Http, new { query = "{ commentById(id: 1) { id user { name } } }" }));
        }
        finally
        {
            Testbed("db", "start");
        }

        Assert.All(during, reply =>
        {
            Assert.Equal(HttpStatusCode.ServiceUnavailable, reply.Status);
            Assert.Equal(Reply.ProblemType, reply.ContentType);
            Assert.Equal(Unreachable, reply.Body);
        });
        foreach (var path in new[] { "/healthz", "/rest/comment/1", "/rest/comments/50", "/rest/user/1/comments/5" })
            Assert.Equal(HttpStatusCode.OK, (await Reply.Get(app.Http, path)).Status);
        var graphql = await Reply.GraphQL(app.Http, new { query = "{ commentsByLimit(limit: 5) { id user { name } } }" });
        Assert.Equal(HttpStatusCode.OK, graphql.Status);
        Assert.StartsWith("{\"data\":", graphql.Body);
    }

    static void Testbed(params string[] args)
    {
        var start = new ProcessStartInfo(Path.Combine(RunningApp.RepoRoot, "testbed"))
        {
            WorkingDirectory = RunningApp.RepoRoot,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var arg in args) start.ArgumentList.Add(arg);
        // Without DB_HOST the CLI manages its own server, which is the one the app is using.
        start.Environment.Remove("DB_HOST");
        using var process = Process.Start(start)!;
        var output = process.StandardOutput.ReadToEndAsync();
        var errors = process.StandardError.ReadToEnd();
        process.WaitForExit();
        Assert.True(process.ExitCode == 0, $"./testbed {string.Join(' ', args)} failed: {output.Result}{errors}");
    }
}
